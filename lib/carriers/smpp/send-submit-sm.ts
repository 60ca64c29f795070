import type smpp from "smpp";
import type { Departure, OutboundPart, SubmitResult } from "../carrier";
import type { Logger } from "../../log";
import type { EncodedPart } from "./encode-part";
import { TEMPORARY_STATUSES, statusCode, statusName } from "./smpp-status";

// One submit_sm on a bound session and what its submit_sm_resp means: status 0 is accepted; ESME_RTHROTTLED,
// ESME_RMSGQFUL, ESME_RSYSERR, no resp within the timeout and a connection lost before the resp are temporary;
// every other status is permanent.

export interface SubmitContext {
  timeoutMs: number;
  /** Settles each submit still waiting for its submit_sm_resp (the link settles them all when it closes). */
  inflight: Set<(result: SubmitResult) => void>;
  log: Logger;
}

export function sendSubmitSm(
  session: smpp.Session,
  part: OutboundPart,
  encoded: EncodedPart,
  departure: Departure | undefined,
  context: SubmitContext,
): Promise<SubmitResult> {
  const { inflight, timeoutMs, log } = context;
  return new Promise((resolve) => {
    const settle = (result: SubmitResult): void => {
      if (!inflight.delete(settle)) return;
      clearTimeout(timer);
      resolve(result);
    };
    const timer = setTimeout(
      () =>
        settle({
          ok: false,
          temporary: true,
          code: "TIMEOUT",
          detail: `no submit_sm_resp within ${timeoutMs} ms`,
        }),
      timeoutMs,
    );
    inflight.add(settle);

    let sent: boolean;
    try {
      sent = session.submit_sm(
        {
          service_type: "",
          source_addr_ton: 1,
          source_addr_npi: 1,
          source_addr: part.from,
          dest_addr_ton: 1,
          dest_addr_npi: 1,
          destination_addr: part.to,
          esm_class: encoded.esmClass,
          registered_delivery: 1,
          data_coding: encoded.dataCoding,
          short_message: encoded.shortMessage,
          ...(encoded.messagePayload ? { message_payload: encoded.messagePayload } : {}),
          ...(part.validUntil ? { validity_period: relativeValidity(part.validUntil - Date.now()) } : {}),
        },
        (resp) => settle(submitResultOf(resp, part, encoded, log)),
        // Once the socket has handed the PDU to the kernel (at once, unless earlier writes are still queued).
        () => departure?.left(),
      );
    } catch (error) {
      // The package could not encode the PDU: sending it again will not help.
      log.error({ err: error, messageId: part.messageId }, "smpp: submit_sm could not be encoded");
      settle({ ok: false, temporary: false, code: "ENCODING", detail: (error as Error).message });
      return;
    }
    if (!sent)
      settle({ ok: false, temporary: true, code: "NOT_BOUND", detail: "the connection to the SMSC is closed" });
  });
}

function submitResultOf(resp: smpp.PDU, part: OutboundPart, encoded: EncodedPart, log: Logger): SubmitResult {
  const status = resp.command_status;
  if (status === 0) {
    const carrierMessageId = typeof resp.message_id === "string" ? resp.message_id : "";
    return encoded.note ? { ok: true, carrierMessageId, note: encoded.note } : { ok: true, carrierMessageId };
  }
  const temporary = TEMPORARY_STATUSES.has(status);
  const detail = statusName(status);
  log.warn(
    { messageId: part.messageId, segment: part.segmentNumber, status: statusCode(status), detail, temporary },
    "smpp: submit_sm refused",
  );
  return { ok: false, temporary, code: statusCode(status), detail };
}

/**
 * SMPP's relative validity_period ("YYMMDDhhmmss000R", SMPP 3.4 §7.1.1) for the time left: the SMSC stops trying
 * to deliver once it has passed, whatever its own clock says. At least one second.
 */
export function relativeValidity(ms: number): string {
  let seconds = Math.max(1, Math.ceil(ms / 1000));
  const days = Math.floor(seconds / 86_400);
  seconds -= days * 86_400;
  const hours = Math.floor(seconds / 3600);
  seconds -= hours * 3600;
  const minutes = Math.floor(seconds / 60);
  seconds -= minutes * 60;
  const two = (n: number) => String(n).padStart(2, "0");
  return `0000${two(days)}${two(hours)}${two(minutes)}${two(seconds)}000R`;
}
