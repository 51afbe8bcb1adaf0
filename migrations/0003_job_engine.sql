-- The home-made run leases and cron claims give way to the job engine (pg-boss, in its own schema).
DROP TABLE "cron_runs" CASCADE;--> statement-breakpoint
DROP TABLE "site_runs" CASCADE;--> statement-breakpoint
CREATE INDEX "checks_checked_at_idx" ON "checks" USING btree ("checked_at");
