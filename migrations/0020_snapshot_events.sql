-- A state's change events move into its snapshot's row: one JSON text per changed state
-- instead of a row (and two index entries) per event. Existing events keep their order.
ALTER TABLE "snapshots" ADD COLUMN "events" json;--> statement-breakpoint
ALTER TABLE "snapshots" ADD COLUMN "event_types" text[];--> statement-breakpoint
UPDATE "snapshots" AS s SET "events" = e.events, "event_types" = e.types
FROM (
  SELECT snapshot_id, json_agg(event ORDER BY id) AS events, array_agg(DISTINCT type) AS types
  FROM "change_events" GROUP BY snapshot_id
) AS e
WHERE s.id = e.snapshot_id;--> statement-breakpoint
DROP TABLE "change_events" CASCADE;
