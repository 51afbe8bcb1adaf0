ALTER TABLE "sites" ADD COLUMN "intent_version" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
-- Sites judged before this column: at least one judgement (and perhaps an incident).
UPDATE "sites" SET "intent_version" = 1
 WHERE "intent_state" IS NOT NULL OR "intent_key" IS NOT NULL
    OR EXISTS (SELECT 1 FROM "incidents" AS i WHERE i."site_id" = "sites"."id");
