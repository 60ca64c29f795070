-- AlterTable
ALTER TABLE "WebhookEndpoint" ADD COLUMN "failoverUrl" TEXT;

