-- CreateTable
CREATE TABLE "SimulatorReceipt" (
    "carrierMessageId" TEXT NOT NULL,
    "status" TEXT NOT NULL,
    "text" TEXT NOT NULL,
    "submittedAt" TIMESTAMP(3) NOT NULL,
    "dueAt" TIMESTAMP(3) NOT NULL,
    "claimedBy" TEXT,
    "claimedUntil" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "SimulatorReceipt_pkey" PRIMARY KEY ("carrierMessageId")
);

-- CreateIndex
CREATE INDEX "SimulatorReceipt_claimedUntil_idx" ON "SimulatorReceipt"("claimedUntil");

-- CreateIndex
CREATE INDEX "SimulatorReceipt_claimedBy_idx" ON "SimulatorReceipt"("claimedBy");

