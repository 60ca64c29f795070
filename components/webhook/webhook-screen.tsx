"use client";

import { useWebhookHealth, useWebhookSettings } from "@/components/data/use-webhook";
import { Notice } from "@/components/ui/notice";
import type { WebhookSettings } from "@/lib/webhooks/manage-webhook";
import type { WebhookHealth } from "@/lib/webhooks/webhook-health";
import type { EventPage } from "@/components/data/use-webhook";
import { DeliveryLog } from "./delivery-log";
import { EndpointForm } from "./endpoint-form";
import { HealthSummary } from "./health-summary";
import { SigningSecret } from "./signing-secret";
import { TestEvent } from "./test-event";

export interface WebhookScreenProps {
  settings: WebhookSettings;
  health: WebhookHealth;
  events: EventPage;
  overlapHours: number;
  allowPrivate: boolean;
}

/** The webhook page: health first, then the settings, the secret, a test, and the delivery log. */
export function WebhookScreen(props: WebhookScreenProps) {
  const settings = useWebhookSettings(props.settings);
  const health = useWebhookHealth(props.health, 10_000);
  const webhook = settings.data;
  const hasUrl = webhook.url !== null;
  return (
    <div className="space-y-6">
      {!hasUrl && (
        <Notice tone="info">
          No webhook URL is saved, so no events are written for this account. Save one below to receive inbound messages
          and delivery statuses.
        </Notice>
      )}
      <HealthSummary health={health.data} />
      <div className="grid gap-6 lg:grid-cols-2">
        <EndpointForm settings={webhook} allowPrivate={props.allowPrivate} />
        <div className="space-y-6">
          <SigningSecret settings={webhook} overlapHours={props.overlapHours} />
          <TestEvent hasUrl={hasUrl} />
        </div>
      </div>
      <DeliveryLog initial={props.events} hasUrl={hasUrl} />
    </div>
  );
}
