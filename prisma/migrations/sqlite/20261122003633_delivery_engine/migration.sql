-- AlterTable
ALTER TABLE "Account" ADD COLUMN "bulkNextSendAt" DATETIME;
ALTER TABLE "Account" ADD COLUMN "nextSendAt" DATETIME;

-- AlterTable
ALTER TABLE "PhoneNumber" ADD COLUMN "leaseOwner" TEXT;
ALTER TABLE "PhoneNumber" ADD COLUMN "leaseUntil" DATETIME;
ALTER TABLE "PhoneNumber" ADD COLUMN "nextSendAt" DATETIME;

-- CreateTable
CREATE TABLE "MessagePart" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "messageId" TEXT NOT NULL,
    "segmentNumber" INTEGER NOT NULL,
    "carrierMessageId" TEXT NOT NULL,
    "status" TEXT NOT NULL,
    "submittedAt" DATETIME NOT NULL,
    "receiptAt" DATETIME,
    CONSTRAINT "MessagePart_messageId_fkey" FOREIGN KEY ("messageId") REFERENCES "Message" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);

-- CreateTable
CREATE TABLE "Conversation" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "accountId" TEXT NOT NULL,
    "accountNumber" TEXT NOT NULL,
    "remoteNumber" TEXT NOT NULL,
    "lastMessageAt" DATETIME NOT NULL,
    "createdAt" DATETIME NOT NULL
);

-- RedefineTables
PRAGMA defer_foreign_keys=ON;
PRAGMA foreign_keys=OFF;
CREATE TABLE "new_Message" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "accountId" TEXT NOT NULL,
    "direction" TEXT NOT NULL,
    "messageType" TEXT NOT NULL,
    "fromNumber" TEXT NOT NULL,
    "toNumber" TEXT NOT NULL,
    "body" TEXT NOT NULL,
    "media" TEXT NOT NULL DEFAULT '[]',
    "numSegments" INTEGER NOT NULL,
    "encoding" TEXT NOT NULL,
    "status" TEXT NOT NULL,
    "rejectReason" TEXT,
    "conversational" BOOLEAN NOT NULL DEFAULT false,
    "bulk" BOOLEAN NOT NULL DEFAULT false,
    "optLogic" BOOLEAN NOT NULL DEFAULT false,
    "optStatus" TEXT NOT NULL DEFAULT '',
    "referenceId" TEXT,
    "userId" TEXT,
    "userType" TEXT,
    "conversationId" TEXT,
    "partsSubmitted" INTEGER NOT NULL DEFAULT 0,
    "nextAttemptAt" DATETIME,
    "attempts" INTEGER NOT NULL DEFAULT 0,
    "expiresAt" DATETIME,
    "createdAt" DATETIME NOT NULL,
    "updatedAt" DATETIME NOT NULL,
    CONSTRAINT "Message_accountId_fkey" FOREIGN KEY ("accountId") REFERENCES "Account" ("id") ON DELETE CASCADE ON UPDATE CASCADE,
    CONSTRAINT "Message_conversationId_fkey" FOREIGN KEY ("conversationId") REFERENCES "Conversation" ("id") ON DELETE SET NULL ON UPDATE CASCADE
);
INSERT INTO "new_Message" ("accountId", "body", "bulk", "conversational", "createdAt", "direction", "encoding", "fromNumber", "id", "media", "messageType", "numSegments", "optLogic", "optStatus", "referenceId", "rejectReason", "status", "toNumber", "updatedAt", "userId", "userType") SELECT "accountId", "body", "bulk", "conversational", "createdAt", "direction", "encoding", "fromNumber", "id", "media", "messageType", "numSegments", "optLogic", "optStatus", "referenceId", "rejectReason", "status", "toNumber", "updatedAt", "userId", "userType" FROM "Message";
DROP TABLE "Message";
ALTER TABLE "new_Message" RENAME TO "Message";
CREATE INDEX "Message_accountId_createdAt_idx" ON "Message"("accountId", "createdAt");
CREATE INDEX "Message_accountId_fromNumber_createdAt_idx" ON "Message"("accountId", "fromNumber", "createdAt");
CREATE INDEX "Message_accountId_toNumber_createdAt_idx" ON "Message"("accountId", "toNumber", "createdAt");
CREATE INDEX "Message_accountId_status_createdAt_idx" ON "Message"("accountId", "status", "createdAt");
CREATE INDEX "Message_accountId_referenceId_idx" ON "Message"("accountId", "referenceId");
CREATE INDEX "Message_status_fromNumber_idx" ON "Message"("status", "fromNumber");
CREATE INDEX "Message_fromNumber_direction_status_bulk_createdAt_idx" ON "Message"("fromNumber", "direction", "status", "bulk", "createdAt");
CREATE INDEX "Message_conversationId_createdAt_idx" ON "Message"("conversationId", "createdAt");
PRAGMA foreign_keys=ON;
PRAGMA defer_foreign_keys=OFF;

-- CreateIndex
CREATE INDEX "MessagePart_status_submittedAt_idx" ON "MessagePart"("status", "submittedAt");

-- CreateIndex
CREATE UNIQUE INDEX "MessagePart_carrierMessageId_key" ON "MessagePart"("carrierMessageId");

-- CreateIndex
CREATE UNIQUE INDEX "MessagePart_messageId_segmentNumber_key" ON "MessagePart"("messageId", "segmentNumber");

-- CreateIndex
CREATE INDEX "Conversation_accountId_lastMessageAt_idx" ON "Conversation"("accountId", "lastMessageAt");

-- CreateIndex
CREATE UNIQUE INDEX "Conversation_accountId_accountNumber_remoteNumber_key" ON "Conversation"("accountId", "accountNumber", "remoteNumber");

