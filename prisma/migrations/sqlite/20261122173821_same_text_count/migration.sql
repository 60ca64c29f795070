-- CreateTable
CREATE TABLE "SameTextCount" (
    "accountId" TEXT NOT NULL,
    "textHash" TEXT NOT NULL,
    "second" BIGINT NOT NULL,
    "count" INTEGER NOT NULL,

    PRIMARY KEY ("accountId", "textHash", "second")
);

-- CreateIndex
CREATE INDEX "SameTextCount_second_idx" ON "SameTextCount"("second");

