-- CreateTable
CREATE TABLE "WebhookEndpoint" (
    "accountId" TEXT NOT NULL PRIMARY KEY,
    "url" TEXT NOT NULL,
    "headerName" TEXT,
    "headerValue" TEXT,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" DATETIME NOT NULL
);

-- CreateTable
CREATE TABLE "WebhookSecret" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "accountId" TEXT NOT NULL,
    "secret" TEXT NOT NULL,
    "createdAt" DATETIME NOT NULL,
    "expiresAt" DATETIME
);

-- CreateTable
CREATE TABLE "WebhookEvent" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "accountId" TEXT NOT NULL,
    "messageId" TEXT NOT NULL,
    "kind" TEXT NOT NULL,
    "segmentNumber" INTEGER,
    "sequence" INTEGER NOT NULL DEFAULT 0,
    "payload" TEXT NOT NULL,
    "status" TEXT NOT NULL,
    "attempts" INTEGER NOT NULL DEFAULT 0,
    "nextAttemptAt" DATETIME NOT NULL,
    "retryFrom" DATETIME NOT NULL,
    "leaseOwner" TEXT,
    "leaseUntil" DATETIME,
    "lastError" TEXT,
    "deliveredAt" DATETIME,
    "createdAt" DATETIME NOT NULL
);

-- CreateTable
CREATE TABLE "WebhookAttempt" (
    "id" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
    "eventId" TEXT NOT NULL,
    "accountId" TEXT NOT NULL,
    "at" DATETIME NOT NULL,
    "url" TEXT NOT NULL,
    "httpStatus" INTEGER,
    "latencyMs" INTEGER NOT NULL,
    "error" TEXT
);

-- CreateIndex
CREATE INDEX "WebhookSecret_accountId_createdAt_idx" ON "WebhookSecret"("accountId", "createdAt");

-- CreateIndex
CREATE INDEX "WebhookEvent_status_nextAttemptAt_idx" ON "WebhookEvent"("status", "nextAttemptAt");

-- CreateIndex
CREATE INDEX "WebhookEvent_messageId_status_createdAt_idx" ON "WebhookEvent"("messageId", "status", "createdAt");

-- CreateIndex
CREATE INDEX "WebhookEvent_accountId_createdAt_idx" ON "WebhookEvent"("accountId", "createdAt");

-- CreateIndex
CREATE INDEX "WebhookAttempt_eventId_at_idx" ON "WebhookAttempt"("eventId", "at");

-- CreateIndex
CREATE INDEX "WebhookAttempt_accountId_at_idx" ON "WebhookAttempt"("accountId", "at");

