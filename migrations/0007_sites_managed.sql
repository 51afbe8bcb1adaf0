ALTER TABLE "sites" ADD COLUMN "settings" jsonb;--> statement-breakpoint
ALTER TABLE "sites" ADD COLUMN "paused_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "sites" ADD COLUMN "removed_at" timestamp with time zone;