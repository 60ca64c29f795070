-- CreateTable
CREATE TABLE "CannedReply" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "accountId" TEXT NOT NULL,
    "ownerId" TEXT,
    "shortcut" TEXT NOT NULL,
    "text" TEXT NOT NULL,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" DATETIME NOT NULL
);

-- CreateIndex
CREATE INDEX "CannedReply_accountId_ownerId_idx" ON "CannedReply"("accountId", "ownerId");

