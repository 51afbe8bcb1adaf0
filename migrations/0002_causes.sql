ALTER TABLE "digests" ADD COLUMN "data" jsonb;--> statement-breakpoint
ALTER TABLE "snapshots" ADD COLUMN "file_condition" text;--> statement-breakpoint
ALTER TABLE "snapshots" ADD COLUMN "causes" jsonb;