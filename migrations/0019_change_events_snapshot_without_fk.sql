ALTER TABLE "change_events" DROP CONSTRAINT "change_events_snapshot_id_snapshots_id_fk";
