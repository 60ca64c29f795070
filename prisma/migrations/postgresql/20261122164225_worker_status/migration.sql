-- CreateTable
CREATE TABLE "WorkerStatus" (
    "workerId" TEXT NOT NULL,
    "carrier" TEXT NOT NULL,
    "state" TEXT NOT NULL,
    "detail" TEXT NOT NULL DEFAULT '',
    "since" TIMESTAMP(3) NOT NULL,
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "WorkerStatus_pkey" PRIMARY KEY ("workerId")
);

-- CreateIndex
CREATE INDEX "WorkerStatus_updatedAt_idx" ON "WorkerStatus"("updatedAt");

