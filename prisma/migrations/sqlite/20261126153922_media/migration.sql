-- CreateTable
CREATE TABLE "Media" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "accountId" TEXT NOT NULL,
    "origin" TEXT NOT NULL,
    "state" TEXT NOT NULL DEFAULT 'ready',
    "stateDetail" TEXT NOT NULL DEFAULT '',
    "contentType" TEXT NOT NULL DEFAULT '',
    "size" INTEGER NOT NULL DEFAULT 0,
    "fileName" TEXT NOT NULL DEFAULT '',
    "width" INTEGER,
    "height" INTEGER,
    "storageKey" TEXT NOT NULL DEFAULT '',
    "sourceUrl" TEXT,
    "parentId" TEXT,
    "fitKey" TEXT,
    "carrierId" TEXT,
    "attempts" INTEGER NOT NULL DEFAULT 0,
    "nextAttemptAt" DATETIME,
    "leaseUntil" DATETIME,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" DATETIME NOT NULL,
    CONSTRAINT "Media_accountId_fkey" FOREIGN KEY ("accountId") REFERENCES "Account" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);

-- CreateTable
CREATE TABLE "MessageMedia" (
    "messageId" TEXT NOT NULL,
    "position" INTEGER NOT NULL,
    "mediaId" TEXT NOT NULL,
    "sourceUrl" TEXT NOT NULL,

    PRIMARY KEY ("messageId", "position"),
    CONSTRAINT "MessageMedia_messageId_fkey" FOREIGN KEY ("messageId") REFERENCES "Message" ("id") ON DELETE CASCADE ON UPDATE CASCADE,
    CONSTRAINT "MessageMedia_mediaId_fkey" FOREIGN KEY ("mediaId") REFERENCES "Media" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);

-- AlterTable (a column with a constant default: no rebuild, so the body search triggers stay)
ALTER TABLE "Message" ADD COLUMN "mediaState" TEXT NOT NULL DEFAULT '';

-- CreateIndex
-- Only the MMS waiting for their media (a partial index: a whole one on mediaState would draw the delivery worker's
-- queue query, which filters on mediaState = '', away from its own index).
CREATE INDEX "Message_media_pending_idx" ON "Message"("createdAt") WHERE "mediaState" = 'pending';

-- CreateIndex
CREATE INDEX "Media_accountId_sourceUrl_idx" ON "Media"("accountId", "sourceUrl");

-- CreateIndex
CREATE INDEX "Media_parentId_fitKey_idx" ON "Media"("parentId", "fitKey");

-- CreateIndex
CREATE INDEX "Media_state_nextAttemptAt_idx" ON "Media"("state", "nextAttemptAt");

-- CreateIndex
CREATE INDEX "Media_createdAt_idx" ON "Media"("createdAt");

-- CreateIndex
CREATE INDEX "MessageMedia_mediaId_idx" ON "MessageMedia"("mediaId");

