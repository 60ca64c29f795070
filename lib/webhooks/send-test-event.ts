import { db } from "../db/client";
import { uuidv7 } from "../db/ids";
import { env } from "../env";
import { ApiError } from "../api/api-error";
import { inboundPayload } from "./build-payloads";
import { deliveryHeaders } from "./delivery-headers";
import { readSigningSecrets } from "./manage-webhook";
import { postWebhook } from "./post-webhook";
import { TEST_EVENT_PREFIX } from "./webhook-schemas";

// "Send test event" in the portal: one POST of a sample inbound-message event to the saved URL, built, signed and
// guarded exactly as a real delivery, and the receiver's answer shown at once. It is tried once (no retries) and
// logged like any event, with an id starting `test_` and a `parley-test: true` header, so the log, the health
// figures and the receiver all see what the receiver really answered, and can tell it from real traffic.

const BODY_BYTES = 500;
// A fictional number (NANP 555-01XX): a receiver that answers it sends nothing to a real phone.
const SAMPLE_FROM = "14155550100";

export interface TestEventResult {
  eventId: string;
  url: string;
  /** A 2xx came back in time. */
  ok: boolean;
  httpStatus: number | null;
  latencyMs: number;
  /** guard (the URL guard refused the address), timeout, network (no connection), status (not a 2xx), or null. */
  failure: "guard" | "timeout" | "network" | "status" | null;
  error: string | null;
  /** The first 500 bytes of the answer's body. */
  body: string;
  at: string;
  /** What was posted. */
  payload: unknown;
}

export async function sendTestEvent(input: { accountId: string }): Promise<TestEventResult> {
  const { accountId } = input;
  const [endpoint, { secrets, unsigned }, number] = await Promise.all([
    db().webhookEndpoint.findUnique({ where: { accountId } }),
    readSigningSecrets(accountId),
    db().phoneNumber.findFirst({ where: { accountId }, orderBy: { number: "asc" }, select: { number: true } }),
  ]);
  if (!endpoint) {
    throw new ApiError("InvalidRequest", {
      detail: "the account has no webhook URL: save one, then send a test event",
      field: "url",
    });
  }
  if (unsigned) {
    throw new ApiError("InvalidRequest", {
      detail:
        "no signing secret can be opened with PARLEY_SECRET_KEY: set the key they were sealed with " +
        "(PARLEY_SECRET_KEY_PREVIOUS), or rotate the secret",
    });
  }
  const at = new Date();
  const eventId = `${TEST_EVENT_PREFIX}${uuidv7(at.getTime())}`;
  const payload = inboundPayload({
    id: uuidv7(at.getTime()),
    accountId,
    fromNumber: SAMPLE_FROM,
    toNumber: number?.number ?? "12025550100",
    body: "This is a test event from Parley.",
    media: "[]",
    messageType: "sms",
    numSegments: 1,
    createdAt: at,
  });
  const body = JSON.stringify(payload);
  const kind = "message-received";
  const response = await postWebhook({
    url: endpoint.url,
    body,
    timeoutMs: env().WEBHOOK_TIMEOUT_SECONDS * 1000,
    allowPrivate: env().WEBHOOK_ALLOW_PRIVATE,
    bodyBytes: BODY_BYTES,
    headers: deliveryHeaders({
      eventId,
      kind,
      payload: body,
      secrets: secrets.map((s) => s.secret),
      headerName: endpoint.headerName,
      headerValue: endpoint.headerValue,
      at,
    }),
  });
  const ok = response.error === null;
  const finishedAt = new Date(at.getTime() + response.latencyMs);
  // Written in its final state: the dispatcher only claims pending events, so it never posts this one again
  // unless someone resends it.
  await db().$transaction([
    db().webhookEvent.create({
      data: {
        id: eventId,
        accountId,
        messageId: payload.messageId,
        kind,
        payload: body,
        status: ok ? "delivered" : "failed",
        attempts: 1,
        nextAttemptAt: finishedAt,
        retryFrom: at,
        lastError: response.error,
        deliveredAt: ok ? finishedAt : null,
        createdAt: at,
      },
    }),
    db().webhookAttempt.create({
      data: {
        eventId,
        accountId,
        at,
        url: endpoint.url,
        httpStatus: response.httpStatus,
        latencyMs: response.latencyMs,
        error: response.error,
      },
    }),
  ]);
  return {
    eventId,
    url: endpoint.url,
    ok,
    httpStatus: response.httpStatus,
    latencyMs: response.latencyMs,
    failure: response.failure,
    error: response.error,
    body: response.body,
    at: at.toISOString(),
    payload,
  };
}
