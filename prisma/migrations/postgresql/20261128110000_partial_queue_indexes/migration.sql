-- Two of the message's indexes that name its status hold only the messages their queries look for: a status change
-- rewrites the entries of every index that names the status, and most changes (sent, delivered…) are of messages
-- these queries never read.
-- The delivery worker's queue of each number (lib/delivery/round-queries.ts names it): the outbound messages queued or
-- being sent, instead of every message ever sent. The IN list is QUEUED_STATUSES (lib/messaging/message-status.ts):
-- the queries repeat it as written here, so that the planners can prove the index covers them.
DROP INDEX "Message_fromNumber_direction_status_bulk_createdAt_idx";

CREATE INDEX "Message_queue_idx" ON "Message"("fromNumber", "status", "bulk", "createdAt")
WHERE "direction" = 'outbound' AND "status" IN ('queued', 'sending');

-- A campaign's messages: only messages of a campaign. Every query of it names the campaign ("campaignId" = …), which
-- implies the condition.
DROP INDEX "Message_campaignId_status_idx";

CREATE INDEX "Message_campaignId_status_idx" ON "Message"("campaignId", "status") WHERE "campaignId" IS NOT NULL;
