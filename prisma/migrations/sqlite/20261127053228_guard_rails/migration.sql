-- CreateTable
CREATE TABLE "DailyUsage" (
    "accountId" TEXT NOT NULL,
    "day" TEXT NOT NULL,
    "messages" INTEGER NOT NULL DEFAULT 0,
    "segments" INTEGER NOT NULL DEFAULT 0,
    "warnedMessages" BOOLEAN NOT NULL DEFAULT false,
    "warnedSegments" BOOLEAN NOT NULL DEFAULT false,

    PRIMARY KEY ("accountId", "day")
);

-- CreateTable
CREATE TABLE "DestinationBurst" (
    "accountId" TEXT NOT NULL,
    "prefix" TEXT NOT NULL,
    "minute" BIGINT NOT NULL,
    "count" INTEGER NOT NULL,

    PRIMARY KEY ("accountId", "prefix", "minute")
);

-- AlterTable (columns added in place: rebuilding Account would be needless work on a large database)
ALTER TABLE "Account" ADD COLUMN "allowedCountries" TEXT NOT NULL DEFAULT '';
ALTER TABLE "Account" ADD COLUMN "dailyMessageLimit" INTEGER NOT NULL DEFAULT 0;
ALTER TABLE "Account" ADD COLUMN "dailySegmentLimit" INTEGER NOT NULL DEFAULT 0;
ALTER TABLE "Account" ADD COLUMN "burstHoldThreshold" INTEGER NOT NULL DEFAULT 20;

-- CreateIndex
CREATE INDEX "DestinationBurst_minute_idx" ON "DestinationBurst"("minute");


-- Held messages (lib/guard): few, read by the dashboard and the validity clock.
CREATE INDEX "Message_held_idx" ON "Message"("createdAt") WHERE "status" = 'held';
