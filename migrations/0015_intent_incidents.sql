CREATE TABLE "incidents" (
	"id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "incidents_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"site_id" integer NOT NULL,
	"state" text NOT NULL,
	"opened_at" timestamp with time zone NOT NULL,
	"resolved_at" timestamp with time zone,
	"site_state" text NOT NULL,
	"causes" jsonb NOT NULL,
	"violations" jsonb NOT NULL,
	"violation_count" integer NOT NULL,
	"worst_count" integer NOT NULL,
	"reopened" integer DEFAULT 0 NOT NULL,
	"acknowledged_at" timestamp with time zone,
	"acknowledged_by" text,
	"note" text,
	"notified_at" timestamp with time zone,
	"updated_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
ALTER TABLE "sites" ADD COLUMN "intent" jsonb;--> statement-breakpoint
ALTER TABLE "sites" ADD COLUMN "intent_state" text;--> statement-breakpoint
ALTER TABLE "sites" ADD COLUMN "intent_since" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "sites" ADD COLUMN "intent_key" text;--> statement-breakpoint
ALTER TABLE "sites" ADD COLUMN "intent_report" jsonb;--> statement-breakpoint
ALTER TABLE "incidents" ADD CONSTRAINT "incidents_site_id_sites_id_fk" FOREIGN KEY ("site_id") REFERENCES "public"."sites"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "incidents_site_idx" ON "incidents" USING btree ("site_id","id");--> statement-breakpoint
CREATE INDEX "incidents_open_idx" ON "incidents" USING btree ("state");