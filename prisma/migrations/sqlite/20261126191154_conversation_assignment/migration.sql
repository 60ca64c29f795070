-- Hand-written: columns added in place (no table rebuild), so Account and Conversation keep their rows, indexes
-- and anything attached to them.

-- AlterTable
ALTER TABLE "Account" ADD COLUMN "conversationVisibility" TEXT NOT NULL DEFAULT 'all';
ALTER TABLE "Account" ADD COLUMN "autoAssign" BOOLEAN NOT NULL DEFAULT false;
ALTER TABLE "Account" ADD COLUMN "agentOpenLimit" INTEGER NOT NULL DEFAULT 0;

-- AlterTable
ALTER TABLE "Conversation" ADD COLUMN "status" TEXT NOT NULL DEFAULT 'open';
ALTER TABLE "Conversation" ADD COLUMN "assigneeId" TEXT;
ALTER TABLE "Conversation" ADD COLUMN "snoozedUntil" DATETIME;

-- CreateTable
CREATE TABLE "ConversationActivity" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "accountId" TEXT NOT NULL,
    "conversationId" TEXT NOT NULL,
    "kind" TEXT NOT NULL,
    "actorId" TEXT,
    "targetId" TEXT,
    "body" TEXT NOT NULL DEFAULT '',
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP
);

-- CreateIndex
CREATE INDEX "Conversation_accountId_status_assigneeId_idx" ON "Conversation"("accountId", "status", "assigneeId");

-- CreateIndex
CREATE INDEX "ConversationActivity_conversationId_createdAt_idx" ON "ConversationActivity"("conversationId", "createdAt");

-- CreateIndex
CREATE INDEX "ConversationActivity_accountId_kind_targetId_createdAt_idx" ON "ConversationActivity"("accountId", "kind", "targetId", "createdAt");
