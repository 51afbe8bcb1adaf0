ALTER TABLE "snapshots" ADD COLUMN "check_count" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "snapshots" ADD COLUMN "last_checked_at" timestamp with time zone;--> statement-breakpoint
-- The checks recorded so far, counted once.
UPDATE "snapshots" AS s SET "check_count" = c.n, "last_checked_at" = c.last
FROM (SELECT "snapshot_id", count(*)::int AS n, max("checked_at") AS last FROM "checks" GROUP BY 1) AS c
WHERE s."id" = c."snapshot_id";
