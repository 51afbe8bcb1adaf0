CREATE TABLE "bodies" (
	"sha256" text PRIMARY KEY NOT NULL,
	"content" "bytea" NOT NULL,
	"size" integer NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "change_events" (
	"id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "change_events_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"site_id" integer NOT NULL,
	"snapshot_id" bigint NOT NULL,
	"type" text NOT NULL,
	"event" jsonb NOT NULL,
	"created_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "checks" (
	"id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "checks_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"snapshot_id" bigint NOT NULL,
	"checked_at" timestamp with time zone NOT NULL,
	"duration_ms" integer NOT NULL,
	"transient" text
);
--> statement-breakpoint
CREATE TABLE "sites" (
	"id" integer PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "sites_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 2147483647 START WITH 1 CACHE 1),
	"origin" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"current_snapshot_id" bigint,
	"verdicts_key" text,
	"unreachable_since" timestamp with time zone,
	CONSTRAINT "sites_origin_unique" UNIQUE("origin")
);
--> statement-breakpoint
CREATE TABLE "snapshots" (
	"id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "snapshots_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"site_id" integer NOT NULL,
	"previous_id" bigint,
	"status" integer,
	"error" text,
	"error_detail" text,
	"body_sha256" text,
	"truncated" boolean DEFAULT false NOT NULL,
	"dropped_bytes" integer,
	"dropped_line_breaks" integer,
	"dropped_complete" boolean,
	"redirects" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"final_url" text NOT NULL,
	"stale" boolean DEFAULT false NOT NULL,
	"last_good_id" bigint,
	"first_seen_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "verdicts" (
	"snapshot_id" bigint NOT NULL,
	"url" text NOT NULL,
	"agent" text NOT NULL,
	"profile" text NOT NULL,
	"allowed" boolean NOT NULL,
	"cause" jsonb,
	CONSTRAINT "verdicts_snapshot_id_url_agent_pk" PRIMARY KEY("snapshot_id","url","agent")
);
--> statement-breakpoint
ALTER TABLE "change_events" ADD CONSTRAINT "change_events_site_id_sites_id_fk" FOREIGN KEY ("site_id") REFERENCES "public"."sites"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "change_events" ADD CONSTRAINT "change_events_snapshot_id_snapshots_id_fk" FOREIGN KEY ("snapshot_id") REFERENCES "public"."snapshots"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "checks" ADD CONSTRAINT "checks_snapshot_id_snapshots_id_fk" FOREIGN KEY ("snapshot_id") REFERENCES "public"."snapshots"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "sites" ADD CONSTRAINT "sites_current_snapshot_id_snapshots_id_fk" FOREIGN KEY ("current_snapshot_id") REFERENCES "public"."snapshots"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "snapshots" ADD CONSTRAINT "snapshots_site_id_sites_id_fk" FOREIGN KEY ("site_id") REFERENCES "public"."sites"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "snapshots" ADD CONSTRAINT "snapshots_previous_id_snapshots_id_fk" FOREIGN KEY ("previous_id") REFERENCES "public"."snapshots"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "snapshots" ADD CONSTRAINT "snapshots_body_sha256_bodies_sha256_fk" FOREIGN KEY ("body_sha256") REFERENCES "public"."bodies"("sha256") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "snapshots" ADD CONSTRAINT "snapshots_last_good_id_snapshots_id_fk" FOREIGN KEY ("last_good_id") REFERENCES "public"."snapshots"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "verdicts" ADD CONSTRAINT "verdicts_snapshot_id_snapshots_id_fk" FOREIGN KEY ("snapshot_id") REFERENCES "public"."snapshots"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "change_events_site_idx" ON "change_events" USING btree ("site_id","id");--> statement-breakpoint
CREATE INDEX "checks_snapshot_idx" ON "checks" USING btree ("snapshot_id","checked_at");--> statement-breakpoint
CREATE INDEX "snapshots_site_idx" ON "snapshots" USING btree ("site_id","id");