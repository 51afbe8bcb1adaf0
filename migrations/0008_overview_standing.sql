ALTER TABLE "sites" ADD COLUMN "current_status" integer;--> statement-breakpoint
ALTER TABLE "sites" ADD COLUMN "current_error" text;--> statement-breakpoint
ALTER TABLE "sites" ADD COLUMN "current_stale" boolean;--> statement-breakpoint
ALTER TABLE "sites" ADD COLUMN "current_file_condition" text;--> statement-breakpoint
ALTER TABLE "sites" ADD COLUMN "blocking" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "snapshots" ADD COLUMN "newly_blocked" boolean GENERATED ALWAYS AS (COALESCE(jsonb_path_exists(causes, '$[*].pairs[*] ? (@.flipped == true && @.allowed == false)'), false)) STORED;--> statement-breakpoint
CREATE INDEX "snapshots_newly_blocked_idx" ON "snapshots" USING btree ("first_seen_at") WHERE newly_blocked;--> statement-breakpoint
-- The standing of every site's current state, as the write path keeps it from now on.
UPDATE "sites" AS s SET "current_status" = n.status, "current_error" = n.error,
  "current_stale" = n.stale, "current_file_condition" = g.file_condition,
  "blocking" = COALESCE(jsonb_path_exists(v.counts, '$[*] ? (@.disallowed > 0)'), false)
FROM "snapshots" AS n
  LEFT JOIN "snapshots" AS g ON g.id = n.last_good_id
  LEFT JOIN "verdict_sets" AS v ON v.snapshot_id = n.id
WHERE n.id = s.current_snapshot_id;
