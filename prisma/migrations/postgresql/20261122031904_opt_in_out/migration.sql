-- CreateTable
CREATE TABLE "OptSettings" (
    "accountId" TEXT NOT NULL,
    "footer" TEXT,
    "stopReply" TEXT,
    "startReply" TEXT,
    "helpReply" TEXT,
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "OptSettings_pkey" PRIMARY KEY ("accountId")
);

-- CreateTable
CREATE TABLE "OptState" (
    "accountId" TEXT NOT NULL,
    "number" TEXT NOT NULL,
    "status" TEXT NOT NULL DEFAULT '',
    "changedAt" TIMESTAMP(3),
    "lastFooterAt" TIMESTAMP(3),

    CONSTRAINT "OptState_pkey" PRIMARY KEY ("accountId","number")
);

-- CreateTable
CREATE TABLE "OptEvent" (
    "id" TEXT NOT NULL,
    "accountId" TEXT NOT NULL,
    "number" TEXT NOT NULL,
    "action" TEXT NOT NULL,
    "source" TEXT NOT NULL,
    "keyword" TEXT,
    "messageId" TEXT,
    "actor" TEXT NOT NULL DEFAULT '',
    "note" TEXT NOT NULL DEFAULT '',
    "createdAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "OptEvent_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "MessageFlag" (
    "id" TEXT NOT NULL,
    "messageId" TEXT NOT NULL,
    "accountId" TEXT NOT NULL,
    "conversationId" TEXT,
    "kind" TEXT NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "MessageFlag_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "OptState_accountId_status_idx" ON "OptState"("accountId", "status");

-- CreateIndex
CREATE INDEX "OptEvent_accountId_createdAt_idx" ON "OptEvent"("accountId", "createdAt");

-- CreateIndex
CREATE INDEX "OptEvent_accountId_number_createdAt_idx" ON "OptEvent"("accountId", "number", "createdAt");

-- CreateIndex
CREATE INDEX "MessageFlag_accountId_createdAt_idx" ON "MessageFlag"("accountId", "createdAt");

-- CreateIndex
CREATE INDEX "MessageFlag_conversationId_idx" ON "MessageFlag"("conversationId");

-- CreateIndex
CREATE UNIQUE INDEX "MessageFlag_messageId_kind_key" ON "MessageFlag"("messageId", "kind");

