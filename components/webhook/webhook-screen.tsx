"use client";

import { useQuery } from "@tanstack/react-query";
import { useAccountApi } from "@/components/portal/portal-context";
import { apiCall } from "@/components/ui/api-client";
import { Notice } from "@/components/ui/notice";
import { keys } from "@/components/ui/query-keys";
import type { WebhookSettings } from "@/lib/webhooks/manage-webhook";
import type { WebhookHealth } from "@/lib/webhooks/webhook-health";
import { DeliveryLog, type EventPage } from "./delivery-log";
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
  const api = useAccountApi();
  const settings = useQuery({
    queryKey: keys.webhook.settings,
    queryFn: () => apiCall<{ webhook: WebhookSettings }>(api("/webhook")),
    initialData: { webhook: props.settings },
    select: (data) => data.webhook,
  });
  const health = useQuery({
    queryKey: keys.webhook.health,
    queryFn: () => apiCall<{ health: WebhookHealth }>(api("/webhook/health")),
    initialData: { health: props.health },
    select: (data) => data.health,
    refetchInterval: 10_000,
  });
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
