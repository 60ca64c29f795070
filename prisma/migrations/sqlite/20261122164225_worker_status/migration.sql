-- CreateTable
CREATE TABLE "WorkerStatus" (
    "workerId" TEXT NOT NULL PRIMARY KEY,
    "carrier" TEXT NOT NULL,
    "state" TEXT NOT NULL,
    "detail" TEXT NOT NULL DEFAULT '',
    "since" DATETIME NOT NULL,
    "updatedAt" DATETIME NOT NULL
);

-- CreateIndex
CREATE INDEX "WorkerStatus_updatedAt_idx" ON "WorkerStatus"("updatedAt");

