CREATE TABLE "archive_captures" (
	"id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "archive_captures_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"site_id" integer NOT NULL,
	"timestamp" text NOT NULL,
	"captured_at" timestamp with time zone NOT NULL,
	"original_url" text NOT NULL,
	"status" integer,
	"error" text,
	"error_detail" text,
	"redirects" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"final_url" text NOT NULL,
	"body_sha256" text,
	"truncated" boolean DEFAULT false NOT NULL,
	"skipped" text,
	"fetched_at" timestamp with time zone NOT NULL,
	CONSTRAINT "archive_captures_site_timestamp_key" UNIQUE("site_id","timestamp")
);
--> statement-breakpoint
ALTER TABLE "snapshots" ADD COLUMN "source" text DEFAULT 'live' NOT NULL;--> statement-breakpoint
ALTER TABLE "snapshots" ADD COLUMN "original_url" text;--> statement-breakpoint
ALTER TABLE "archive_captures" ADD CONSTRAINT "archive_captures_site_id_sites_id_fk" FOREIGN KEY ("site_id") REFERENCES "public"."sites"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "archive_captures" ADD CONSTRAINT "archive_captures_body_sha256_bodies_sha256_fk" FOREIGN KEY ("body_sha256") REFERENCES "public"."bodies"("sha256") ON DELETE no action ON UPDATE no action;