CREATE TABLE "catalog_version" (
	"id" integer PRIMARY KEY NOT NULL,
	"version" bigint DEFAULT 0 NOT NULL,
	"xact" bigint
);
--> statement-breakpoint
INSERT INTO "catalog_version" ("id", "version") VALUES (1, 0);
--> statement-breakpoint
-- Counts a change of the site catalogue once per transaction, at its commit (a deferred
-- trigger: the counter's row is locked only at the very end, so two transactions that
-- change several sites each cannot deadlock on it).
CREATE FUNCTION "catalog_changed"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE "catalog_version" SET "version" = "version" + 1, "xact" = txid_current()
    WHERE "id" = 1 AND "xact" IS DISTINCT FROM txid_current();
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE CONSTRAINT TRIGGER "sites_catalog_changed"
  AFTER INSERT OR DELETE OR UPDATE OF "origin", "settings", "paused_at", "removed_at", "intent"
  ON "sites" DEFERRABLE INITIALLY DEFERRED
  FOR EACH ROW EXECUTE FUNCTION "catalog_changed"();
--> statement-breakpoint
CREATE CONSTRAINT TRIGGER "shared_settings_catalog_changed"
  AFTER INSERT OR DELETE OR UPDATE ON "shared_settings" DEFERRABLE INITIALLY DEFERRED
  FOR EACH ROW EXECUTE FUNCTION "catalog_changed"();
