CREATE TABLE "registry_findings" (
	"id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "registry_findings_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"site_id" integer NOT NULL,
	"version_id" integer NOT NULL,
	"cause" jsonb NOT NULL,
	"created_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "registry_versions" (
	"id" integer PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "registry_versions_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 2147483647 START WITH 1 CACHE 1),
	"sha256" text NOT NULL,
	"source" text NOT NULL,
	"date" text NOT NULL,
	"agents" integer NOT NULL,
	"content" "bytea" NOT NULL,
	"recorded_at" timestamp with time zone NOT NULL,
	CONSTRAINT "registry_versions_sha256_unique" UNIQUE("sha256")
);
--> statement-breakpoint
ALTER TABLE "verdict_sets" ADD COLUMN "registry_sha256" text;--> statement-breakpoint
ALTER TABLE "registry_findings" ADD CONSTRAINT "registry_findings_site_id_sites_id_fk" FOREIGN KEY ("site_id") REFERENCES "public"."sites"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "registry_findings" ADD CONSTRAINT "registry_findings_version_id_registry_versions_id_fk" FOREIGN KEY ("version_id") REFERENCES "public"."registry_versions"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "registry_findings_site_idx" ON "registry_findings" USING btree ("site_id","created_at");