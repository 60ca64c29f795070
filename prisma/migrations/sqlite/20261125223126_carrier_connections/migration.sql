-- AlterTable
ALTER TABLE "Message" ADD COLUMN "carrierMessageId" TEXT;

-- CreateTable
CREATE TABLE "CarrierConnection" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "accountId" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "type" TEXT NOT NULL,
    "enabled" BOOLEAN NOT NULL DEFAULT true,
    "settings" TEXT NOT NULL DEFAULT '{}',
    "credentials" TEXT NOT NULL DEFAULT '',
    "state" TEXT NOT NULL DEFAULT 'unknown',
    "stateDetail" TEXT NOT NULL DEFAULT '',
    "stateSince" DATETIME,
    "failures" INTEGER NOT NULL DEFAULT 0,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" DATETIME NOT NULL,
    CONSTRAINT "CarrierConnection_accountId_fkey" FOREIGN KEY ("accountId") REFERENCES "Account" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);

-- RedefineTables
PRAGMA defer_foreign_keys=ON;
PRAGMA foreign_keys=OFF;
CREATE TABLE "new_PhoneNumber" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "accountId" TEXT NOT NULL,
    "number" TEXT NOT NULL,
    "label" TEXT NOT NULL DEFAULT '',
    "ratePerSecond" REAL NOT NULL DEFAULT 1,
    "nextSendAt" DATETIME,
    "leaseOwner" TEXT,
    "leaseUntil" DATETIME,
    "carrierId" TEXT,
    "providerNumberId" TEXT,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "PhoneNumber_accountId_fkey" FOREIGN KEY ("accountId") REFERENCES "Account" ("id") ON DELETE CASCADE ON UPDATE CASCADE,
    CONSTRAINT "PhoneNumber_carrierId_fkey" FOREIGN KEY ("carrierId") REFERENCES "CarrierConnection" ("id") ON DELETE SET NULL ON UPDATE CASCADE
);
INSERT INTO "new_PhoneNumber" ("accountId", "createdAt", "id", "label", "leaseOwner", "leaseUntil", "nextSendAt", "number", "ratePerSecond") SELECT "accountId", "createdAt", "id", "label", "leaseOwner", "leaseUntil", "nextSendAt", "number", "ratePerSecond" FROM "PhoneNumber";
DROP TABLE "PhoneNumber";
ALTER TABLE "new_PhoneNumber" RENAME TO "PhoneNumber";
CREATE UNIQUE INDEX "PhoneNumber_number_key" ON "PhoneNumber"("number");
CREATE INDEX "PhoneNumber_accountId_idx" ON "PhoneNumber"("accountId");
CREATE INDEX "PhoneNumber_carrierId_idx" ON "PhoneNumber"("carrierId");
PRAGMA foreign_keys=ON;
PRAGMA defer_foreign_keys=OFF;

-- CreateIndex
CREATE UNIQUE INDEX "CarrierConnection_accountId_name_key" ON "CarrierConnection"("accountId", "name");

-- CreateIndex
CREATE UNIQUE INDEX "Message_accountId_carrierMessageId_key" ON "Message"("accountId", "carrierMessageId");

