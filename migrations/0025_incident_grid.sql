-- Past the 200 differing cells an incident keeps, the block they make when they make one
-- (every one of some pages for every one of some crawlers): its reminders and the incident
-- page say it whole, as the alert that opened it did, not "the first pair, and 279 more".
ALTER TABLE "incidents" ADD COLUMN "grid" jsonb;