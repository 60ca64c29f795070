/**
 * The SMPP 3.4 carrier: an ESME bound as a transceiver to one SMSC, built on the `smpp` package.
 *
 * The decisions:
 * - start() connects and returns; binding and rebinding happen in the background (smpp-link.ts). On close or error
 *   the carrier reconnects after an exponential backoff (config.reconnect, default 1 s doubling to 30 s, ±50 %
 *   jitter clamped to that range), forever, until stop(). A refused bind (wrong password, …) is logged and retried
 *   the same way.
 * - enquire_link every enquireLinkSeconds (default 30); one still unanswered when the next is due means the link is
 *   dead, and the carrier reconnects.
 * - submit() while not bound waits for the bind up to submitTimeoutMs (default 30 s), then answers NOT_BOUND
 *   (temporary). At most `window` (default 10) submit_sm are outstanding; more wait for a slot, in order.
 * - submit_sm_resp: status 0 is accepted; ESME_RTHROTTLED, ESME_RMSGQFUL, ESME_RSYSERR, no resp within
 *   submitTimeoutMs and a connection lost before the resp are temporary; every other status is permanent
 *   (send-submit-sm.ts).
 * - Every deliver_sm is answered once its handler has finished: ESME_ROK, or ESME_RX_T_APPN when the handler threw
 *   (the SMSC retries later), or ESME_RX_P_APPN when the PDU cannot be parsed (a retry cannot help)
 *   (handle-deliver-sm.ts).
 * - stop() lets outstanding submits and deliveries finish (bounded by submitTimeoutMs), hands over incomplete
 *   concatenated messages, unbinds, waits for unbind_resp and closes.
 */
import type { Carrier, CarrierEvents, CarrierState, Departure, OutboundPart, SubmitResult } from "../carrier";
import { type Logger, logger } from "../../log";
import { type EncodedPart, encodePart } from "./encode-part";
import { DeliverSmHandler } from "./handle-deliver-sm";
import { sendSubmitSm } from "./send-submit-sm";
import { SmppLink, delay } from "./smpp-link";
import { SubmitWindow } from "./submit-window";

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

/** Least time a TCP connect plus bind_transceiver gets before the attempt is abandoned. */
const MIN_BIND_TIMEOUT_MS = 10_000;

export function createSmppCarrier(config: SmppCarrierConfig, options: SmppCarrierOptions = {}): Carrier {
  return new SmppCarrier(config, options.log ?? logger().child({ carrier: "smpp" }));
}

class SmppCarrier implements Carrier {
  readonly name = "smpp";

  private readonly submitTimeoutMs: number;
  private readonly window: SubmitWindow;
  private readonly link: SmppLink;
  private readonly inbound: DeliverSmHandler;

  private events?: CarrierEvents;
  private state: "new" | "running" | "stopping" | "stopped" = "new";
  /** Settles each submit still waiting for its submit_sm_resp. */
  private readonly inflight = new Set<(result: SubmitResult) => void>();
  /** Submits and deliver_sm handlers under way, for stop() to wait on. */
  private readonly busy = new Set<Promise<unknown>>();

  constructor(
    private readonly config: SmppCarrierConfig,
    private readonly log: Logger,
  ) {
    this.submitTimeoutMs = config.submitTimeoutMs ?? 30_000;
    const reconnectMinMs = config.reconnect?.minMs ?? 1_000;
    this.window = new SubmitWindow(config.window ?? 10);
    this.link = new SmppLink(
      {
        host: config.host,
        port: config.port,
        systemId: config.systemId,
        password: config.password,
        systemType: config.systemType ?? "",
        // A short submit timeout must not cut off a slow bind: that would only make the next bind slower still.
        bindTimeoutMs: Math.max(this.submitTimeoutMs, MIN_BIND_TIMEOUT_MS),
        enquireLinkMs: (config.enquireLinkSeconds ?? 30) * 1000,
        reconnectMinMs,
        reconnectMaxMs: Math.max(reconnectMinMs, config.reconnect?.maxMs ?? 30_000),
        submitTimeoutMs: this.submitTimeoutMs,
      },
      {
        running: () => this.state === "running",
        onDeliverSm: (session, pdu, raw) => this.track(this.inbound.answer(session, pdu, raw)),
        onClosed: () => this.settleInflight(),
      },
      log,
    );
    this.inbound = new DeliverSmHandler(() => this.events!, config.reassemblyTimeoutMs ?? 60_000, log);
  }

  async start(events: CarrierEvents): Promise<void> {
    if (this.state !== "new") throw new Error(`SMPP carrier cannot start: it is ${this.state}`);
    this.events = events;
    this.state = "running";
    this.link.connect();
  }

  submit(part: OutboundPart, departure?: Departure): Promise<SubmitResult> {
    const work = this.submitPart(part, departure);
    this.track(work);
    return work;
  }

  connectionState(): CarrierState {
    const { host, port, systemId } = this.config;
    const { bound, lastError, boundChangedAt: since } = this.link;
    if (bound) return { state: "bound", detail: `${host}:${port} as ${systemId}`, since };
    if (this.state === "stopping" || this.state === "stopped")
      return { state: "down", detail: `the SMPP carrier is ${this.state}`, since };
    // Before the first failure it is still on its way; after one, it is down until a bind succeeds.
    if (lastError === "not connected yet") return { state: "connecting", detail: `${host}:${port}`, since };
    return { state: "down", detail: `${lastError}; reconnecting to ${host}:${port}`, since };
  }

  submitWindow(): { inUse: number; size: number } {
    return { inUse: this.window.outstanding, size: this.window.size };
  }

  async stop(): Promise<void> {
    if (this.state !== "running") return;
    this.state = "stopping";
    this.window.close();
    this.link.stopReconnecting();

    await Promise.race([Promise.allSettled([...this.busy]), delay(this.submitTimeoutMs)]);
    await this.inbound.flush();
    await this.link.close();
    this.state = "stopped";
    this.log.info("smpp: stopped");
  }

  private track(work: Promise<unknown>): void {
    this.busy.add(work);
    const forget = (): void => void this.busy.delete(work);
    work.then(forget, forget);
  }

  private settleInflight(): void {
    for (const settle of this.inflight) {
      settle({
        ok: false,
        temporary: true,
        code: "CONNECTION_LOST",
        detail: "the connection to the SMSC closed before its submit_sm_resp",
      });
    }
  }

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
      if (!(await this.link.waitForBind())) {
        const reason = this.state === "running" ? this.link.lastError || "not bound" : "the SMPP carrier is stopping";
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
      const session = this.link.session;
      if (!session)
        return { ok: false, temporary: true, code: "NOT_BOUND", detail: "the connection to the SMSC closed" };
      return await sendSubmitSm(session, part, encoded, departure, {
        timeoutMs: this.submitTimeoutMs,
        inflight: this.inflight,
        log: this.log,
      });
    } finally {
      this.window.release();
    }
  }
}
