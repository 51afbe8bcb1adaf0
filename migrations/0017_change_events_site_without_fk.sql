ALTER TABLE "change_events" DROP CONSTRAINT "change_events_site_id_sites_id_fk";
