-- AlterTable
ALTER TABLE "Account" ADD COLUMN     "allowedCountries" TEXT NOT NULL DEFAULT '',
ADD COLUMN     "burstHoldThreshold" INTEGER NOT NULL DEFAULT 20,
ADD COLUMN     "dailyMessageLimit" INTEGER NOT NULL DEFAULT 0,
ADD COLUMN     "dailySegmentLimit" INTEGER NOT NULL DEFAULT 0;

-- CreateTable
CREATE TABLE "DailyUsage" (
    "accountId" TEXT NOT NULL,
    "day" TEXT NOT NULL,
    "messages" INTEGER NOT NULL DEFAULT 0,
    "segments" INTEGER NOT NULL DEFAULT 0,
    "warnedMessages" BOOLEAN NOT NULL DEFAULT false,
    "warnedSegments" BOOLEAN NOT NULL DEFAULT false,

    CONSTRAINT "DailyUsage_pkey" PRIMARY KEY ("accountId","day")
);

-- CreateTable
CREATE TABLE "DestinationBurst" (
    "accountId" TEXT NOT NULL,
    "prefix" TEXT NOT NULL,
    "minute" BIGINT NOT NULL,
    "count" INTEGER NOT NULL,

    CONSTRAINT "DestinationBurst_pkey" PRIMARY KEY ("accountId","prefix","minute")
);

-- CreateIndex
CREATE INDEX "DestinationBurst_minute_idx" ON "DestinationBurst"("minute");


-- Held messages (lib/guard): few, read by the dashboard and the validity clock.
CREATE INDEX "Message_held_idx" ON "Message"("createdAt") WHERE "status" = 'held';
