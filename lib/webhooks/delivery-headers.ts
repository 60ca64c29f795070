import { Webhook } from "standardwebhooks";
import { TEST_EVENT_PREFIX } from "./webhook-schemas";

// The headers of every POST of an event, built in one place: the dispatcher's deliveries and the portal's test
// events must look the same to a receiver (same signing, same customer header).

/** The Standard Webhooks headers: one `v1,` signature per secret in use (two during a rotation's overlap). */
export function signatureHeaders(
  eventId: string,
  payload: string,
  secrets: string[],
  at: Date,
): Record<string, string> {
  return {
    "webhook-id": eventId,
    "webhook-timestamp": String(Math.floor(at.getTime() / 1000)),
    "webhook-signature": secrets.map((secret) => new Webhook(secret).sign(eventId, at, payload)).join(" "),
  };
}

export function deliveryHeaders(options: {
  eventId: string;
  kind: string;
  payload: string;
  secrets: string[];
  headerName: string | null;
  headerValue: string | null;
  at: Date;
}): Record<string, string> {
  return {
    ...(options.headerName && options.headerValue ? { [options.headerName]: options.headerValue } : {}),
    ...signatureHeaders(options.eventId, options.payload, options.secrets, options.at),
    "parley-event": options.kind,
    // A test event (sent from the portal, or such an event resent) says so, so a receiver can leave it aside.
    ...(options.eventId.startsWith(TEST_EVENT_PREFIX) ? { "parley-test": "true" } : {}),
  };
}
