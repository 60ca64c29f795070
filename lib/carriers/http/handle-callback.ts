import { CLIENT_IP_HEADER } from "../../auth/client-ip";
import { recordAudit } from "../../audit/audit-trail";
import { logger } from "../../log";
import { receiveMessage } from "../../messaging/receive-message";
import { connectionUrls } from "../connections/connection-urls";
import { loadOpenConnection } from "../connections/manage-connections";
import type { CallbackKind, CallbackRequest } from "./provider";
import { isHttpProvider, providerFor } from "./providers";
import { recordProviderStatuses } from "./record-provider-status";
import { bandwidthChallenge } from "./bandwidth";

// POST /carriers/{connectionId}/status and /inbound: a provider's callbacks. Nothing is read before the provider's
// signature is checked against the connection's credentials; a callback unsigned, stale or wrongly signed is answered
// 403, changes nothing and leaves one line in the account's audit trail. A verified callback answers only for its
// own account: receipts for its messages, inbound messages to its numbers. A callback seen before changes nothing
// again (receipts settle a part once; an inbound message is kept once by its provider id).

/** Callbacks are small; anything larger is not one. */
const MAX_BODY_BYTES = 256 * 1024;

function plain(status: number, text: string): Response {
  return new Response(`${text}\n`, { status, headers: { "content-type": "text/plain; charset=utf-8" } });
}

export async function handleCarrierCallback(req: Request, connectionId: string, kind: CallbackKind): Promise<Response> {
  const log = logger().child({ component: "carrier-callback", connectionId, kind });
  const connection = await loadOpenConnection(connectionId);
  if (!connection || !isHttpProvider(connection.type)) return plain(404, "No such carrier connection.");
  const length = Number(req.headers.get("content-length") ?? 0);
  if (length > MAX_BODY_BYTES) return plain(413, "The callback is too large.");
  const body = await req.text();
  if (Buffer.byteLength(body) > MAX_BODY_BYTES) return plain(413, "The callback is too large.");
  // The URL the provider was given (and signed): the configured one, whatever Host a proxy passed on.
  const url = connectionUrls(connection.id)[kind === "status" ? "statusUrl" : "inboundUrl"] + new URL(req.url).search;
  const request: CallbackRequest = { url, headers: req.headers, body };
  const provider = providerFor(connection);
  const verdict = await provider.verify(request, kind);
  // Bandwidth sends Basic credentials as RFC 7235 frames it: a callback without any is challenged, not audited.
  if (!verdict.ok && connection.type === "bandwidth" && !req.headers.has("authorization")) return bandwidthChallenge();
  if (!verdict.ok) {
    const ip = req.headers.get(CLIENT_IP_HEADER) ?? "";
    log.warn({ reason: verdict.reason, ip }, "carrier callback refused");
    await recordAudit({
      accountId: connection.accountId,
      actor: `carrier:${connection.name}`,
      action: "carrier.callback_refused",
      target: `${kind} callback`,
      detail: verdict.reason,
      ip,
    });
    return plain(403, "The callback's signature was refused.");
  }
  // A provider that posts every event to one URL (Bandwidth) sends status events to the inbound address too.
  const updates = provider.parseStatus(request);
  if (updates.length > 0) {
    const outcome = await recordProviderStatuses(connection.accountId, connection.type, updates);
    if (outcome.unknown > 0)
      log.warn({ updates: updates.length, ...outcome }, "status callback for an unknown message");
  }
  // Bandwidth's older applications post every event to one URL: its inbound messages may come to either address.
  const inbound = kind === "inbound" || connection.type === "bandwidth" ? provider.parseInbound(request) : [];
  for (const message of inbound) {
    const received = await receiveMessage(message, {
      accountId: connection.accountId,
      once: true,
      carrierId: connection.id,
    });
    if (!received)
      log.info(
        { carrierMessageId: message.carrierMessageId },
        "inbound callback kept no message (a repeat, or not this account's number)",
      );
  }
  return provider.callbackAnswer?.(kind) ?? new Response(null, { status: 200 });
}
