import { requireAdmin } from "@/app/(portal)/require-user";
import { PageHeader } from "@/components/ui/page-header";
import { LOG_PAGE } from "@/components/webhook/log-query";
import { WebhookScreen } from "@/components/webhook/webhook-screen";
import { env } from "@/lib/env";
import { getWebhookSettings } from "@/lib/webhooks/manage-webhook";
import { listWebhookEvents } from "@/lib/webhooks/webhook-log";
import { webhookHealth } from "@/lib/webhooks/webhook-health";

export const metadata = { title: "Webhook · Parley" };

export default async function Page() {
  const user = await requireAdmin();
  const [settings, health, events] = await Promise.all([
    getWebhookSettings(user.accountId),
    webhookHealth(user.accountId),
    listWebhookEvents(user.accountId, { start: 0, limit: LOG_PAGE, include: "attempts" }),
  ]);
  return (
    <>
      <PageHeader
        title="Webhook"
        description="Parley posts inbound messages and delivery statuses to your application, signed, and retries for 24 hours."
      />
      <WebhookScreen
        settings={settings}
        health={health}
        events={events}
        overlapHours={env().WEBHOOK_SECRET_OVERLAP_HOURS}
        allowPrivate={env().WEBHOOK_ALLOW_PRIVATE}
      />
    </>
  );
}
