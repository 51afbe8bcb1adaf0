CREATE INDEX "outbox_site_idx" ON "outbox" USING btree ("site_id","id");--> statement-breakpoint
CREATE INDEX "outbox_created_idx" ON "outbox" USING btree ("created_at");