ALTER TABLE "outbox" DROP COLUMN "leased_by";--> statement-breakpoint
ALTER TABLE "outbox" DROP COLUMN "lease_until";