-- AlterTable
ALTER TABLE "Message" ADD COLUMN "sendAt" DATETIME;
ALTER TABLE "Message" ADD COLUMN "validUntil" DATETIME;

-- AlterTable (a column added in place: rebuilding Account would gain nothing)
ALTER TABLE "Account" ADD COLUMN "smartEncoding" BOOLEAN NOT NULL DEFAULT false;

-- The worker's looks for scheduled sends that are due and for waiting sends whose validity ran out: partial indexes
-- that hold only the messages still waiting (lib/delivery/due-messages.ts spells the same predicates).
CREATE INDEX "Message_scheduled_idx" ON "Message"("sendAt") WHERE "status" = 'scheduled';
CREATE INDEX "Message_validity_idx" ON "Message"("validUntil") WHERE "status" IN ('scheduled', 'queued') AND "validUntil" IS NOT NULL;
