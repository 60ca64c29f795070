-- AlterTable
ALTER TABLE "Account" ADD COLUMN     "agentOpenLimit" INTEGER NOT NULL DEFAULT 0,
ADD COLUMN     "autoAssign" BOOLEAN NOT NULL DEFAULT false,
ADD COLUMN     "conversationVisibility" TEXT NOT NULL DEFAULT 'all';

-- AlterTable
ALTER TABLE "Conversation" ADD COLUMN     "assigneeId" TEXT,
ADD COLUMN     "snoozedUntil" TIMESTAMP(3),
ADD COLUMN     "status" TEXT NOT NULL DEFAULT 'open';

-- CreateTable
CREATE TABLE "ConversationActivity" (
    "id" TEXT NOT NULL,
    "accountId" TEXT NOT NULL,
    "conversationId" TEXT NOT NULL,
    "kind" TEXT NOT NULL,
    "actorId" TEXT,
    "targetId" TEXT,
    "body" TEXT NOT NULL DEFAULT '',
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "ConversationActivity_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "ConversationActivity_conversationId_createdAt_idx" ON "ConversationActivity"("conversationId", "createdAt");

-- CreateIndex
CREATE INDEX "ConversationActivity_accountId_kind_targetId_createdAt_idx" ON "ConversationActivity"("accountId", "kind", "targetId", "createdAt");

-- CreateIndex
CREATE INDEX "Conversation_accountId_status_assigneeId_idx" ON "Conversation"("accountId", "status", "assigneeId");

