CREATE TABLE "coverage" (
	"snapshot_id" bigint NOT NULL,
	"url_set_id" bigint NOT NULL,
	"agents_key" text NOT NULL,
	"computed_at" timestamp with time zone NOT NULL,
	"data" jsonb NOT NULL,
	CONSTRAINT "coverage_key" UNIQUE("snapshot_id","url_set_id","agents_key")
);
--> statement-breakpoint
CREATE TABLE "sitemap_files" (
	"site_id" integer NOT NULL,
	"url" text NOT NULL,
	"etag" text,
	"last_modified" text,
	"format" text NOT NULL,
	"list_sha256" text NOT NULL,
	"fetched_at" timestamp with time zone NOT NULL,
	CONSTRAINT "sitemap_files_site_url" UNIQUE("site_id","url")
);
--> statement-breakpoint
CREATE TABLE "url_lists" (
	"sha256" text PRIMARY KEY NOT NULL,
	"count" integer NOT NULL,
	"data" "bytea" NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "url_sets" (
	"id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "url_sets_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"site_id" integer NOT NULL,
	"list_sha256" text NOT NULL,
	"first_seen_at" timestamp with time zone NOT NULL,
	"last_seen_at" timestamp with time zone NOT NULL,
	"added" integer NOT NULL,
	"removed" integer NOT NULL,
	"report" jsonb NOT NULL
);
--> statement-breakpoint
ALTER TABLE "coverage" ADD CONSTRAINT "coverage_snapshot_id_snapshots_id_fk" FOREIGN KEY ("snapshot_id") REFERENCES "public"."snapshots"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "coverage" ADD CONSTRAINT "coverage_url_set_id_url_sets_id_fk" FOREIGN KEY ("url_set_id") REFERENCES "public"."url_sets"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "sitemap_files" ADD CONSTRAINT "sitemap_files_site_id_sites_id_fk" FOREIGN KEY ("site_id") REFERENCES "public"."sites"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "sitemap_files" ADD CONSTRAINT "sitemap_files_list_sha256_url_lists_sha256_fk" FOREIGN KEY ("list_sha256") REFERENCES "public"."url_lists"("sha256") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "url_sets" ADD CONSTRAINT "url_sets_site_id_sites_id_fk" FOREIGN KEY ("site_id") REFERENCES "public"."sites"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "url_sets" ADD CONSTRAINT "url_sets_list_sha256_url_lists_sha256_fk" FOREIGN KEY ("list_sha256") REFERENCES "public"."url_lists"("sha256") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "url_sets_site_idx" ON "url_sets" USING btree ("site_id","id");