-- A change of the site catalogue is also announced, at its commit, on the channel
-- robowatch_catalog (its payload the new count): a daemon on PostgreSQL that listens
-- reads the sites at once instead of at its next upkeep round (up to 15 s later). The
-- count stays what a process that cannot listen compares.
CREATE OR REPLACE FUNCTION "catalog_changed"() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  counted bigint;
BEGIN
  UPDATE "catalog_version" SET "version" = "version" + 1, "xact" = txid_current()
    WHERE "id" = 1 AND "xact" IS DISTINCT FROM txid_current()
    RETURNING "version" INTO counted;
  IF counted IS NOT NULL THEN
    PERFORM pg_notify('robowatch_catalog', counted::text);
  END IF;
  RETURN NULL;
END $$;
