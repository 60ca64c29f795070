-- DropIndex
DROP INDEX "Message_accountId_referenceId_idx";

-- CreateIndex
CREATE INDEX "Message_accountId_referenceId_createdAt_idx" ON "Message"("accountId", "referenceId", "createdAt");

-- CreateIndex
CREATE INDEX "Message_accountId_direction_createdAt_idx" ON "Message"("accountId", "direction", "createdAt");

-- CreateIndex
CREATE INDEX "Message_accountId_messageType_createdAt_idx" ON "Message"("accountId", "messageType", "createdAt");

-- CreateIndex
CREATE INDEX "Message_accountId_numSegments_createdAt_idx" ON "Message"("accountId", "numSegments", "createdAt");


-- The body filter's index: trigrams of the lower-cased body (pg_trgm), which serves lower(body) LIKE '%…%'.
CREATE EXTENSION IF NOT EXISTS pg_trgm;

CREATE INDEX "Message_body_trgm_idx" ON "Message" USING gin (lower("body") gin_trgm_ops);
