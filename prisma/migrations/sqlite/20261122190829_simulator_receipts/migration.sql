-- CreateTable
CREATE TABLE "SimulatorReceipt" (
    "carrierMessageId" TEXT NOT NULL PRIMARY KEY,
    "status" TEXT NOT NULL,
    "text" TEXT NOT NULL,
    "submittedAt" DATETIME NOT NULL,
    "dueAt" DATETIME NOT NULL,
    "claimedBy" TEXT,
    "claimedUntil" DATETIME NOT NULL
);

-- CreateIndex
CREATE INDEX "SimulatorReceipt_claimedUntil_idx" ON "SimulatorReceipt"("claimedUntil");

-- CreateIndex
CREATE INDEX "SimulatorReceipt_claimedBy_idx" ON "SimulatorReceipt"("claimedBy");

