/**
 * The SMPP 3.4 carrier: an ESME bound as a transceiver to one SMSC, built on the `smpp` package.
 *
 * The decisions:
 * - start() connects and returns; binding and rebinding happen in the background. On close or error the carrier
 *   reconnects after an exponential backoff (config.reconnect, default 1 s doubling to 30 s, ±50 % jitter clamped
 *   to that range), forever, until stop(). A refused bind (wrong password, …) is logged and retried the same way.
 * - enquire_link every enquireLinkSeconds (default 30); one still unanswered when the next is due means the link is
 *   dead, and the carrier reconnects.
 * - submit() while not bound waits for the bind up to submitTimeoutMs (default 30 s), then answers NOT_BOUND
 *   (temporary). At most `window` (default 10) submit_sm are outstanding; more wait for a slot, in order.
 * - submit_sm_resp: status 0 is accepted; ESME_RTHROTTLED, ESME_RMSGQFUL, ESME_RSYSERR, no resp within
 *   submitTimeoutMs and a connection lost before the resp are temporary; every other status is permanent.
 * - Every deliver_sm is answered once its handler has finished: ESME_ROK, or ESME_RX_T_APPN when the handler threw
 *   (the SMSC retries later), or ESME_RX_P_APPN when the PDU cannot be parsed (a retry cannot help).
 * - stop() lets outstanding submits and deliveries finish (bounded by submitTimeoutMs), hands over incomplete
 *   concatenated messages, unbinds, waits for unbind_resp and closes.
 */
import smpp from "smpp";
import type {
  Carrier,
  CarrierEvents,
  CarrierState,
  InboundMessage,
  Departure,
  OutboundPart,
  SubmitResult,
} from "../carrier";
import { type Logger, logger } from "../../log";
import { decodeText } from "./decode-text";
import { type EncodedPart, encodePart } from "./encode-part";
import {
  type DeliverSm,
  ESM_CLASS_RECEIPT,
  concatInfoOf,
  isMalformedPdu,
  parseDeliverSm,
  userDataOf,
} from "./parse-deliver-sm";
import { buildReceipt, isIntermediateReceipt, receiptText } from "./parse-receipt";
import { PartReassembler } from "./reassemble-parts";
import { SubmitWindow } from "./submit-window";
import { tapRawPdus } from "./tap-raw-pdus";

export interface SmppCarrierConfig {
  host: string;
  port: number;
  systemId: string;
  password: string;
  systemType?: string;
  /** Outstanding submit_sm at most (default 10). */
  window?: number;
  /** Seconds between enquire_link (default 30). */
  enquireLinkSeconds?: number;
  /** Reconnect backoff bounds in ms (default 1 000 to 30 000). */
  reconnect?: { minMs: number; maxMs: number };
  /** How long a submit waits for the bind, and then for its submit_sm_resp (default 30 000 ms). */
  submitTimeoutMs?: number;
  /** How long the parts of a concatenated inbound message are awaited before what arrived is delivered (60 000). */
  reassemblyTimeoutMs?: number;
}

export interface SmppCarrierOptions {
  /** Defaults to the application logger. */
  log?: Logger;
}

const COMMAND_ID_DELIVER_SM = 0x00000005;
const ESME_RINVCMDID = 0x03;
const ESME_RX_T_APPN = 0x64;
const ESME_RX_P_APPN = 0x65;
/** Statuses after which the same submit may well succeed later: ESME_RTHROTTLED, ESME_RMSGQFUL, ESME_RSYSERR. */
const TEMPORARY_STATUSES: ReadonlySet<number> = new Set([0x58, 0x14, 0x08]);
/** Least time a TCP connect plus bind_transceiver gets before the attempt is abandoned. */
const MIN_BIND_TIMEOUT_MS = 10_000;
/** Longest wait for unbind_resp and the close on stop(). */
const STOP_STEP_MS = 5_000;

const statusNames: ReadonlyMap<number, string> = (() => {
  const names = new Map<number, string>();
  for (const [name, value] of Object.entries(smpp.errors)) if (!names.has(value)) names.set(value, name);
  return names;
})();

function statusName(status: number): string {
  return statusNames.get(status) ?? "unknown command_status";
}

function statusCode(status: number): string {
  return `0x${status.toString(16).padStart(2, "0")}`;
}

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms).unref());
}

interface HeldPart {
  from: string;
  to: string;
  dataCoding: number;
  body: Buffer;
}

export function createSmppCarrier(config: SmppCarrierConfig, options: SmppCarrierOptions = {}): Carrier {
  return new SmppCarrier(config, options.log ?? logger().child({ carrier: "smpp" }));
}

class SmppCarrier implements Carrier {
  readonly name = "smpp";

  private readonly submitTimeoutMs: number;
  private readonly bindTimeoutMs: number;
  private readonly enquireLinkMs: number;
  private readonly reconnectMinMs: number;
  private readonly reconnectMaxMs: number;
  private readonly window: SubmitWindow;
  private readonly reassembler: PartReassembler<HeldPart>;

  private events?: CarrierEvents;
  private state: "new" | "running" | "stopping" | "stopped" = "new";
  private session?: smpp.Session;
  private bound = false;
  /** When `bound` last changed (or the carrier was made): the dashboard's "bound since" / "down since". */
  private boundChangedAt = new Date();
  private attempt = 0;
  private lastError = "not connected yet";
  private reconnectTimer?: NodeJS.Timeout;
  private bindTimer?: NodeJS.Timeout;
  private enquireTimer?: NodeJS.Timeout;
  private readonly bindWaiters = new Set<() => void>();
  /** Settles each submit still waiting for its submit_sm_resp. */
  private readonly inflight = new Set<(result: SubmitResult) => void>();
  /** Submits and deliver_sm handlers under way, for stop() to wait on. */
  private readonly busy = new Set<Promise<unknown>>();

  constructor(
    private readonly config: SmppCarrierConfig,
    private readonly log: Logger,
  ) {
    this.submitTimeoutMs = config.submitTimeoutMs ?? 30_000;
    // A short submit timeout must not cut off a slow bind: that would only make the next bind slower still.
    this.bindTimeoutMs = Math.max(this.submitTimeoutMs, MIN_BIND_TIMEOUT_MS);
    this.enquireLinkMs = (config.enquireLinkSeconds ?? 30) * 1000;
    this.reconnectMinMs = config.reconnect?.minMs ?? 1_000;
    this.reconnectMaxMs = Math.max(this.reconnectMinMs, config.reconnect?.maxMs ?? 30_000);
    this.window = new SubmitWindow(config.window ?? 10);
    this.reassembler = new PartReassembler<HeldPart>(config.reassemblyTimeoutMs ?? 60_000, (parts, total) =>
      this.deliverIncomplete(parts, total),
    );
  }

  async start(events: CarrierEvents): Promise<void> {
    if (this.state !== "new") throw new Error(`SMPP carrier cannot start: it is ${this.state}`);
    this.events = events;
    this.state = "running";
    this.connect();
  }

  submit(part: OutboundPart, departure?: Departure): Promise<SubmitResult> {
    const work = this.submitPart(part, departure);
    this.track(work);
    return work;
  }

  connectionState(): CarrierState {
    const { host, port, systemId } = this.config;
    const since = this.boundChangedAt;
    if (this.bound) return { state: "bound", detail: `${host}:${port} as ${systemId}`, since };
    if (this.state === "stopping" || this.state === "stopped")
      return { state: "down", detail: `the SMPP carrier is ${this.state}`, since };
    // Before the first failure it is still on its way; after one, it is down until a bind succeeds.
    if (this.lastError === "not connected yet") return { state: "connecting", detail: `${host}:${port}`, since };
    return { state: "down", detail: `${this.lastError}; reconnecting to ${host}:${port}`, since };
  }

  submitWindow(): { inUse: number; size: number } {
    return { inUse: this.window.outstanding, size: this.window.size };
  }

  private setBound(bound: boolean): void {
    if (this.bound !== bound) this.boundChangedAt = new Date();
    this.bound = bound;
  }

  async stop(): Promise<void> {
    if (this.state !== "running") return;
    this.state = "stopping";
    clearTimeout(this.reconnectTimer);
    this.window.close();
    for (const wake of this.bindWaiters) wake();

    await Promise.race([Promise.allSettled([...this.busy]), delay(this.submitTimeoutMs)]);
    await this.reassembler.flush();

    const session = this.session;
    if (session && this.bound) {
      const closed = new Promise<void>((resolve) => session.socket.once("close", () => resolve()));
      const unbound = new Promise<void>((resolve) => {
        if (!session.unbind({}, () => resolve())) resolve();
      });
      await Promise.race([unbound, closed, delay(STOP_STEP_MS)]);
      this.log.info("smpp: unbound");
      session.close();
      await Promise.race([closed, delay(STOP_STEP_MS)]);
    }
    // Not bound (still connecting or binding), or the SMSC did not close in time.
    if (session && !session.socket.destroyed) session.destroy();
    this.clearSessionTimers();
    this.state = "stopped";
    this.log.info("smpp: stopped");
  }

  // --- connection -------------------------------------------------------------------------------------------

  private connect(): void {
    const { host, port, systemId } = this.config;
    this.log.info({ host, port, systemId, attempt: this.attempt }, "smpp: connecting");
    const session = smpp.connect({ host, port });
    this.session = session;
    // A part leaves when it is written (pacing is measured there), so the kernel must not hold it back: with Nagle's
    // algorithm a small PDU waits while an earlier segment (a deliver_sm_resp, say) is unacknowledged, up to the
    // SMSC's delayed ACK, and then reaches the SMSC late, less than an interval before the next part.
    session.socket.setNoDelay(true);

    const rawDeliverSms = new Map<number, Buffer>();
    tapRawPdus(session.socket, (pdu) => {
      if (pdu.readUInt32BE(4) === COMMAND_ID_DELIVER_SM) rawDeliverSms.set(pdu.readUInt32BE(12), pdu);
    });

    // Covers a TCP connect that hangs as well as a bind_transceiver nobody answers.
    this.bindTimer = setTimeout(() => {
      this.lastError = `not bound within ${this.bindTimeoutMs} ms`;
      this.log.warn({ host, port }, `smpp: ${this.lastError}`);
      session.destroy();
    }, this.bindTimeoutMs);

    session.on("connect", () => {
      session.bind_transceiver(
        {
          system_id: systemId,
          password: this.config.password,
          system_type: this.config.systemType ?? "",
          interface_version: 0x34,
        },
        (resp) => this.onBindResp(session, resp),
      );
    });
    session.on("error", (error: Error) => {
      this.lastError = error.message;
      this.log.warn({ err: error, host, port }, "smpp: connection error");
      session.destroy();
    });
    session.on("close", () => this.onClose(session));
    session.on("pdu", (pdu: smpp.PDU) => this.onPdu(session, pdu, rawDeliverSms));
  }

  private onBindResp(session: smpp.Session, resp: smpp.PDU): void {
    clearTimeout(this.bindTimer);
    if (session !== this.session) return;
    if (this.state !== "running") {
      session.destroy();
      return;
    }
    if (resp.command_status !== 0) {
      const status = resp.command_status;
      this.lastError = `bind_transceiver refused: ${statusName(status)} (${statusCode(status)})`;
      this.log.error({ systemId: this.config.systemId, status: statusCode(status) }, `smpp: ${this.lastError}`);
      session.destroy();
      return;
    }
    this.setBound(true);
    this.attempt = 0;
    this.lastError = "";
    this.log.info({ systemId: this.config.systemId, smsc: resp.system_id }, "smpp: bound as transceiver");
    this.startEnquireLink(session);
    for (const wake of this.bindWaiters) wake();
  }

  private startEnquireLink(session: smpp.Session): void {
    let unanswered = false;
    this.enquireTimer = setInterval(() => {
      if (unanswered) {
        this.lastError = "enquire_link unanswered";
        this.log.warn("smpp: enquire_link unanswered; reconnecting");
        session.destroy();
        return;
      }
      unanswered = true;
      session.enquire_link({}, () => {
        unanswered = false;
      });
    }, this.enquireLinkMs);
  }

  private onClose(session: smpp.Session): void {
    if (session !== this.session) return;
    const wasBound = this.bound;
    this.setBound(false);
    this.session = undefined;
    this.clearSessionTimers();
    for (const settle of this.inflight) {
      settle({
        ok: false,
        temporary: true,
        code: "CONNECTION_LOST",
        detail: "the connection to the SMSC closed before its submit_sm_resp",
      });
    }
    if (this.state !== "running") return;

    this.lastError ||= "connection closed by the SMSC";
    const delayMs = this.backoff();
    this.attempt++;
    this.log.warn(
      { wasBound, reason: this.lastError, attempt: this.attempt, delayMs },
      "smpp: connection closed; reconnecting",
    );
    this.reconnectTimer = setTimeout(() => this.connect(), delayMs);
  }

  private backoff(): number {
    const base = Math.min(this.reconnectMaxMs, this.reconnectMinMs * 2 ** Math.min(this.attempt, 30));
    const jittered = base * (0.5 + Math.random());
    return Math.round(Math.min(this.reconnectMaxMs, Math.max(this.reconnectMinMs, jittered)));
  }

  private clearSessionTimers(): void {
    clearTimeout(this.bindTimer);
    clearInterval(this.enquireTimer);
    this.bindTimer = undefined;
    this.enquireTimer = undefined;
  }

  private waitForBind(): Promise<boolean> {
    if (this.bound) return Promise.resolve(true);
    return new Promise((resolve) => {
      const wake = (): void => {
        clearTimeout(timer);
        this.bindWaiters.delete(wake);
        resolve(this.bound && this.state === "running");
      };
      const timer = setTimeout(wake, this.submitTimeoutMs);
      this.bindWaiters.add(wake);
    });
  }

  private track(work: Promise<unknown>): void {
    this.busy.add(work);
    const forget = (): void => void this.busy.delete(work);
    work.then(forget, forget);
  }

  // --- submit -----------------------------------------------------------------------------------------------

  private async submitPart(part: OutboundPart, departure?: Departure): Promise<SubmitResult> {
    if (this.state !== "running") {
      return { ok: false, temporary: true, code: "NOT_BOUND", detail: `the SMPP carrier is ${this.state}` };
    }
    let encoded: EncodedPart;
    try {
      encoded = encodePart(part);
    } catch (error) {
      return { ok: false, temporary: false, code: "ENCODING", detail: (error as Error).message };
    }

    if (!(await this.window.acquire())) {
      return { ok: false, temporary: true, code: "NOT_BOUND", detail: "the SMPP carrier is stopping" };
    }
    try {
      if (!(await this.waitForBind())) {
        const reason = this.state === "running" ? this.lastError || "not bound" : "the SMPP carrier is stopping";
        return {
          ok: false,
          temporary: true,
          code: "NOT_BOUND",
          detail: `not bound to the SMSC within ${this.submitTimeoutMs} ms: ${reason}`,
        };
      }
      // A part that waited for a window slot may have to wait a little more, so the number's pace holds on the wire.
      const waiting = departure?.leave();
      if (waiting) await waiting;
      const session = this.session;
      if (!session)
        return { ok: false, temporary: true, code: "NOT_BOUND", detail: "the connection to the SMSC closed" };
      return await this.sendSubmitSm(session, part, encoded, departure);
    } finally {
      this.window.release();
    }
  }

  private sendSubmitSm(
    session: smpp.Session,
    part: OutboundPart,
    encoded: EncodedPart,
    departure?: Departure,
  ): Promise<SubmitResult> {
    return new Promise((resolve) => {
      const settle = (result: SubmitResult): void => {
        if (!this.inflight.delete(settle)) return;
        clearTimeout(timer);
        resolve(result);
      };
      const timer = setTimeout(
        () =>
          settle({
            ok: false,
            temporary: true,
            code: "TIMEOUT",
            detail: `no submit_sm_resp within ${this.submitTimeoutMs} ms`,
          }),
        this.submitTimeoutMs,
      );
      this.inflight.add(settle);

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
          },
          (resp) => settle(this.resultOf(resp, part, encoded)),
          // Once the socket has handed the PDU to the kernel (at once, unless earlier writes are still queued).
          () => departure?.left(),
        );
      } catch (error) {
        // The package could not encode the PDU: sending it again will not help.
        this.log.error({ err: error, messageId: part.messageId }, "smpp: submit_sm could not be encoded");
        settle({ ok: false, temporary: false, code: "ENCODING", detail: (error as Error).message });
        return;
      }
      if (!sent)
        settle({ ok: false, temporary: true, code: "NOT_BOUND", detail: "the connection to the SMSC is closed" });
    });
  }

  private resultOf(resp: smpp.PDU, part: OutboundPart, encoded: EncodedPart): SubmitResult {
    const status = resp.command_status;
    if (status === 0) {
      const carrierMessageId = typeof resp.message_id === "string" ? resp.message_id : "";
      return encoded.note ? { ok: true, carrierMessageId, note: encoded.note } : { ok: true, carrierMessageId };
    }
    const temporary = TEMPORARY_STATUSES.has(status);
    const detail = statusName(status);
    this.log.warn(
      { messageId: part.messageId, segment: part.segmentNumber, status: statusCode(status), detail, temporary },
      "smpp: submit_sm refused",
    );
    return { ok: false, temporary, code: statusCode(status), detail };
  }

  // --- PDUs from the SMSC -----------------------------------------------------------------------------------

  private onPdu(session: smpp.Session, pdu: smpp.PDU, rawDeliverSms: Map<number, Buffer>): void {
    if (pdu.isResponse()) return; // the package routes responses to the request's callback
    switch (pdu.command) {
      case "deliver_sm": {
        const raw = rawDeliverSms.get(pdu.sequence_number);
        rawDeliverSms.delete(pdu.sequence_number);
        this.track(this.answerDeliverSm(session, pdu, raw));
        return;
      }
      case "enquire_link":
        session.send(pdu.response());
        return;
      case "unbind":
        this.log.info("smpp: the SMSC unbound");
        this.lastError = "unbound by the SMSC";
        this.setBound(false);
        session.send(pdu.response(), undefined, () => session.close());
        return;
      case "alert_notification":
        return; // has no response
      default:
        this.log.warn({ command: pdu.command }, "smpp: unsupported PDU from the SMSC");
        session.send(
          new smpp.PDU("generic_nack", { sequence_number: pdu.sequence_number, command_status: ESME_RINVCMDID }),
        );
    }
  }

  private async answerDeliverSm(session: smpp.Session, pdu: smpp.PDU, raw: Buffer | undefined): Promise<void> {
    let status = 0;
    try {
      if (!raw) throw new Error("the raw bytes of this deliver_sm were not seen");
      await this.handleDeliverSm(parseDeliverSm(raw));
    } catch (error) {
      status = isMalformedPdu(error) ? ESME_RX_P_APPN : ESME_RX_T_APPN;
      this.log.error(
        { err: error, sequence: pdu.sequence_number, status: statusCode(status) },
        "smpp: deliver_sm not handled",
      );
    }
    session.send(pdu.response(status === 0 ? {} : { command_status: status }));
  }

  private async handleDeliverSm(deliver: DeliverSm): Promise<void> {
    const events = this.events!;
    const { udh, body } = userDataOf(deliver);
    const from = deliver.sourceAddr.replace(/^\+/, "");
    const to = deliver.destinationAddr.replace(/^\+/, "");

    if (deliver.esmClass & ESM_CLASS_RECEIPT) {
      const text = receiptText(body, deliver.dataCoding);
      if (isIntermediateReceipt(deliver, text)) {
        this.log.debug({ from, to }, "smpp: intermediate receipt (en route / accepted); the final one will follow");
        return;
      }
      const receipt = buildReceipt(deliver, text, new Date());
      if (!receipt) {
        this.log.warn({ from, to }, "smpp: delivery receipt without a message id; ignored");
        return;
      }
      await events.onReceipt(receipt);
      return;
    }

    const concat = concatInfoOf(deliver, udh);
    const held: HeldPart = { from, to, dataCoding: deliver.dataCoding, body };
    if (!concat || concat.total <= 1 || concat.seq < 1 || concat.seq > concat.total) {
      await events.onInbound(this.inboundOf([held]));
      return;
    }
    const key = `${from}|${to}|${concat.ref}`;
    const parts = this.reassembler.add(key, concat.total, concat.seq, held);
    if (!parts) return;
    try {
      await events.onInbound(this.inboundOf(parts));
      this.reassembler.done(key);
    } catch (error) {
      this.reassembler.retry(key, concat.seq);
      throw error;
    }
  }

  private async deliverIncomplete(parts: HeldPart[], total: number): Promise<void> {
    const message = this.inboundOf(parts);
    this.log.warn(
      { from: message.from, to: message.to, received: parts.length, total },
      "smpp: parts of a concatenated message missing; delivering what arrived",
    );
    try {
      await this.events!.onInbound(message);
    } catch (error) {
      this.log.error({ err: error }, "smpp: inbound handler failed; will retry the incomplete message");
      throw error;
    }
  }

  /** Joins parts' bytes before decoding, so an escape or surrogate pair split between parts survives. */
  private inboundOf(parts: HeldPart[]): InboundMessage {
    const first = parts[0]!;
    const sameCoding = parts.every((part) => part.dataCoding === first.dataCoding);
    const text = sameCoding
      ? decodeText(Buffer.concat(parts.map((part) => part.body)), first.dataCoding)
      : parts.map((part) => decodeText(part.body, part.dataCoding)).join("");
    return { from: first.from, to: first.to, text, media: [], numSegments: parts.length, receivedAt: new Date() };
  }
}
