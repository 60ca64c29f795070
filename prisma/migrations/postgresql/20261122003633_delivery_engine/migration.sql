-- AlterTable
ALTER TABLE "Account" ADD COLUMN     "bulkNextSendAt" TIMESTAMP(3),
ADD COLUMN     "nextSendAt" TIMESTAMP(3);

-- AlterTable
ALTER TABLE "PhoneNumber" ADD COLUMN     "leaseOwner" TEXT,
ADD COLUMN     "leaseUntil" TIMESTAMP(3),
ADD COLUMN     "nextSendAt" TIMESTAMP(3);

-- AlterTable
ALTER TABLE "Message" ADD COLUMN     "attempts" INTEGER NOT NULL DEFAULT 0,
ADD COLUMN     "conversationId" TEXT,
ADD COLUMN     "expiresAt" TIMESTAMP(3),
ADD COLUMN     "nextAttemptAt" TIMESTAMP(3),
ADD COLUMN     "partsSubmitted" INTEGER NOT NULL DEFAULT 0;

-- CreateTable
CREATE TABLE "MessagePart" (
    "id" TEXT NOT NULL,
    "messageId" TEXT NOT NULL,
    "segmentNumber" INTEGER NOT NULL,
    "carrierMessageId" TEXT NOT NULL,
    "status" TEXT NOT NULL,
    "submittedAt" TIMESTAMP(3) NOT NULL,
    "receiptAt" TIMESTAMP(3),

    CONSTRAINT "MessagePart_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "Conversation" (
    "id" TEXT NOT NULL,
    "accountId" TEXT NOT NULL,
    "accountNumber" TEXT NOT NULL,
    "remoteNumber" TEXT NOT NULL,
    "lastMessageAt" TIMESTAMP(3) NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "Conversation_pkey" PRIMARY KEY ("id")
);

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

-- CreateIndex
CREATE INDEX "Message_status_fromNumber_idx" ON "Message"("status", "fromNumber");

-- CreateIndex
CREATE INDEX "Message_fromNumber_direction_status_bulk_createdAt_idx" ON "Message"("fromNumber", "direction", "status", "bulk", "createdAt");

-- CreateIndex
CREATE INDEX "Message_conversationId_createdAt_idx" ON "Message"("conversationId", "createdAt");

-- AddForeignKey
ALTER TABLE "Message" ADD CONSTRAINT "Message_conversationId_fkey" FOREIGN KEY ("conversationId") REFERENCES "Conversation"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "MessagePart" ADD CONSTRAINT "MessagePart_messageId_fkey" FOREIGN KEY ("messageId") REFERENCES "Message"("id") ON DELETE CASCADE ON UPDATE CASCADE;

