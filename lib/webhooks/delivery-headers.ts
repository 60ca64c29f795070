import { createHmac } from "node:crypto";
import { TEST_EVENT_PREFIX } from "./webhook-schemas";

// The headers of every POST of an event, built in one place: the dispatcher's deliveries and the portal's test
// events must look the same to a receiver (same signing, same customer header).

// Signed as the Standard Webhooks specification says (what the standardwebhooks package's `sign` computes, and
// what its `verify` checks in the tests): base64 of HMAC-SHA256 over `id.timestamp.payload`, keyed with the
// base64-decoded part of the secret after `whsec_`. With Node's own HMAC instead of the package's JavaScript SHA-256
// (fast-sha256), whose hashing and key set-up per call were 4–5 % of the worker's busy time while it posted a
// webhook for every receipt.
const SECRET_PREFIX = "whsec_";
/** Decoded keys by secret: an account has one or two secrets in use, so this stays small. */
const keys = new Map<string, Buffer>();
const MAX_KEYS = 1_000;

function keyOf(secret: string): Buffer {
  let key = keys.get(secret);
  if (key) return key;
  key = Buffer.from(secret.startsWith(SECRET_PREFIX) ? secret.slice(SECRET_PREFIX.length) : secret, "base64");
  if (key.length === 0) throw new Error("a webhook secret can't be empty");
  if (keys.size >= MAX_KEYS) keys.clear();
  keys.set(secret, key);
  return key;
}

/** One `v1,` signature of a payload with one secret. */
function signPayload(secret: string, eventId: string, timestamp: number, payload: string): string {
  return `v1,${createHmac("sha256", keyOf(secret)).update(`${eventId}.${timestamp}.${payload}`).digest("base64")}`;
}

/** The Standard Webhooks headers: one `v1,` signature per secret in use (two during a rotation's overlap). */
export function signatureHeaders(
  eventId: string,
  payload: string,
  secrets: string[],
  at: Date,
): Record<string, string> {
  const timestamp = Math.floor(at.getTime() / 1000);
  return {
    "webhook-id": eventId,
    "webhook-timestamp": String(timestamp),
    "webhook-signature": secrets.map((secret) => signPayload(secret, eventId, timestamp, payload)).join(" "),
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
