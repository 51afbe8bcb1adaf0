-- How few distinct standings the sites have (most share one), for the overview's read of
-- every site's standing grouped: without it the planner reckons on thousands of groups and
-- sorts every site to make them (89 ms of 146 for 100,000 sites, spilling to disk), where
-- hashing them takes a scan and little more. Read by the next ANALYZE (autovacuum's, or
-- the daemon's upkeep on a server without it): this one's for a database upgraded.
CREATE STATISTICS "sites_standing_stats" (ndistinct) ON (current_snapshot_id IS NOT NULL), current_status, current_error, current_stale, current_file_condition, blocking, intent_state, (refused_since IS NOT NULL) FROM "sites";
--> statement-breakpoint
ANALYZE "sites";
