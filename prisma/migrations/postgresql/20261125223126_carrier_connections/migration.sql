-- AlterTable
ALTER TABLE "PhoneNumber" ADD COLUMN     "carrierId" TEXT,
ADD COLUMN     "providerNumberId" TEXT;

-- AlterTable
ALTER TABLE "Message" ADD COLUMN     "carrierMessageId" TEXT;

-- CreateTable
CREATE TABLE "CarrierConnection" (
    "id" TEXT NOT NULL,
    "accountId" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "type" TEXT NOT NULL,
    "enabled" BOOLEAN NOT NULL DEFAULT true,
    "settings" TEXT NOT NULL DEFAULT '{}',
    "credentials" TEXT NOT NULL DEFAULT '',
    "state" TEXT NOT NULL DEFAULT 'unknown',
    "stateDetail" TEXT NOT NULL DEFAULT '',
    "stateSince" TIMESTAMP(3),
    "failures" INTEGER NOT NULL DEFAULT 0,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "CarrierConnection_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "CarrierConnection_accountId_name_key" ON "CarrierConnection"("accountId", "name");

-- CreateIndex
CREATE INDEX "PhoneNumber_carrierId_idx" ON "PhoneNumber"("carrierId");

-- CreateIndex
CREATE UNIQUE INDEX "Message_accountId_carrierMessageId_key" ON "Message"("accountId", "carrierMessageId");

-- AddForeignKey
ALTER TABLE "PhoneNumber" ADD CONSTRAINT "PhoneNumber_carrierId_fkey" FOREIGN KEY ("carrierId") REFERENCES "CarrierConnection"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "CarrierConnection" ADD CONSTRAINT "CarrierConnection_accountId_fkey" FOREIGN KEY ("accountId") REFERENCES "Account"("id") ON DELETE CASCADE ON UPDATE CASCADE;

