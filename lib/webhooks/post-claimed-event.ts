import { deliveryHeaders } from "./delivery-headers";
import { postWebhook, type WebhookResponse } from "./post-webhook";
import type { WebhookTarget } from "./webhook-targets";
import type { ClaimedEvent } from "./webhook-queries";

// One attempt at a leased event: signed and posted to the account's URL, or a failed attempt without a request when
// the account has no URL (any more). What the attempt leads to is decided when its outcome is recorded.

export interface PostSettings {
  timeoutMs: number;
  allowPrivate: boolean;
}

/** Posts `event` to `url` of `target` (signed as of `at`); its answer, or why there was none. */
export async function postClaimedEvent(
  event: ClaimedEvent,
  target: WebhookTarget | null,
  at: Date,
  settings: PostSettings,
  url = target?.url ?? "",
): Promise<WebhookResponse> {
  if (!target) return notPosted("the account has no webhook URL configured");
  // An unsigned event would be refused by a receiver that checks, or worse, taken by one that does not: it waits,
  // and is tried again, until the key is back (PARLEY_SECRET_KEY_PREVIOUS, docs/SECURITY.md).
  if (target.unsigned) return notPosted("no signing secret can be opened with PARLEY_SECRET_KEY");
  return postWebhook({
    url,
    body: event.payload,
    timeoutMs: settings.timeoutMs,
    allowPrivate: settings.allowPrivate,
    headers: deliveryHeaders({
      eventId: event.id,
      kind: event.kind,
      payload: event.payload,
      secrets: target.secrets,
      headerName: target.headerName,
      headerValue: target.headerValue,
      at,
    }),
  });
}

/** An attempt that made no request. */
function notPosted(error: string): WebhookResponse {
  return { httpStatus: null, latencyMs: 0, error, retryAfterAt: null, refused: false, failure: "network", body: "" };
}
