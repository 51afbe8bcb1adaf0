ALTER TABLE "sites" ADD COLUMN "refused_since" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "sites" ADD COLUMN "refused_reason" text;--> statement-breakpoint
ALTER TABLE "sites" ADD COLUMN "refused_at" timestamp with time zone;