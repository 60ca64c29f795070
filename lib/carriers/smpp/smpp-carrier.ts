/**
 * The SMPP 3.4 carrier: an ESME bound to one SMSC, built on the `smpp` package, over `binds` transceiver sessions
 * (the default, one) or `binds` transmitter and `binds` receiver sessions (smpp-sessions.ts).
 *
 * The decisions:
 * - start() connects and returns; binding and rebinding happen in the background (smpp-link.ts), for each session
 *   on its own. On close or error a session reconnects after an exponential backoff (config.reconnect, default 1 s
 *   doubling to 30 s, ±50 % jitter clamped to that range), forever, until stop(). A refused bind (wrong password,
 *   …) is logged and retried the same way.
 * - enquire_link every enquireLinkSeconds (default 30) on each session; one still unanswered when the next is due
 *   means the session is dead, and it reconnects.
 * - submit() while no session can transmit waits for a bind up to submitTimeoutMs (default 30 s), then answers
 *   NOT_BOUND (temporary). Each transmit-capable session has `window` (default 10) outstanding submit_sm at most;
 *   a submit goes to the session with the most room, more wait for a slot, in order.
 * - submit_sm_resp: status 0 is accepted; ESME_RTHROTTLED, ESME_RMSGQFUL, ESME_RSYSERR, no resp within
 *   submitTimeoutMs and a connection lost before the resp are temporary; every other status is permanent
 *   (send-submit-sm.ts). After ESME_RTHROTTLED or ESME_RMSGQFUL the session rests (config.throttle, default 1 s
 *   doubling to 30 s, back to 1 s after an accepted submit) while the other sessions go on.
 * - Every deliver_sm, whichever session it arrives on, goes through one handler (so the parts of a concatenated
 *   message reassemble across sessions) and is answered on its session once handled: ESME_ROK, or ESME_RX_T_APPN
 *   when the handler threw (the SMSC retries later), or ESME_RX_P_APPN when the PDU cannot be parsed (a retry
 *   cannot help) (handle-deliver-sm.ts). A receipt is matched by the message id the SMSC gave, not by session.
 * - stop() lets outstanding submits and deliveries finish (bounded by submitTimeoutMs), hands over incomplete
 *   concatenated messages, unbinds every session, waits for the unbind_resp and closes.
 */
import type { Carrier, CarrierEvents, CarrierState, Departure, OutboundPart, SubmitResult } from "../carrier";
import { type Logger, logger } from "../../log";
import { type EncodedPart, encodePart } from "./encode-part";
import { DeliverSmHandler } from "./handle-deliver-sm";
import { sendSubmitSm } from "./send-submit-sm";
import { delay } from "./smpp-link";
import { type BindMode, SmppSessions } from "./smpp-sessions";

export interface SmppCarrierConfig {
  host: string;
  port: number;
  systemId: string;
  password: string;
  systemType?: string;
  /** Outstanding submit_sm at most, per transmit-capable session (default 10). */
  window?: number;
  /** Sessions of each kind (1 to 16, default 1). */
  binds?: number;
  /** `binds` transceivers (the default), or `binds` transmitters and `binds` receivers. */
  bindMode?: BindMode;
  /** Seconds between enquire_link (default 30). */
  enquireLinkSeconds?: number;
  /** Reconnect backoff bounds in ms (default 1 000 to 30 000). */
  reconnect?: { minMs: number; maxMs: number };
  /** How long a session rests after ESME_RTHROTTLED or ESME_RMSGQFUL, in ms (default 1 000 doubling to 30 000). */
  throttle?: { minMs: number; maxMs: number };
  /** How long a submit waits for the bind, and then for its submit_sm_resp (default 30 000 ms). */
  submitTimeoutMs?: number;
  /** How long the parts of a concatenated inbound message are awaited before what arrived is delivered (60 000). */
  reassemblyTimeoutMs?: number;
}

export interface SmppCarrierOptions {
  /** Defaults to the application logger. */
  log?: Logger;
}

/** Least time a TCP connect plus bind gets before the attempt is abandoned. */
const MIN_BIND_TIMEOUT_MS = 10_000;

export function createSmppCarrier(config: SmppCarrierConfig, options: SmppCarrierOptions = {}): Carrier {
  return new SmppCarrier(config, options.log ?? logger().child({ carrier: "smpp" }));
}

class SmppCarrier implements Carrier {
  readonly name = "smpp";

  private readonly submitTimeoutMs: number;
  private readonly sessions: SmppSessions;
  private readonly inbound: DeliverSmHandler;

  private events?: CarrierEvents;
  private state: "new" | "running" | "stopping" | "stopped" = "new";
  /** Submits and deliver_sm handlers under way, for stop() to wait on. */
  private readonly busy = new Set<Promise<unknown>>();

  constructor(
    config: SmppCarrierConfig,
    private readonly log: Logger,
  ) {
    this.submitTimeoutMs = config.submitTimeoutMs ?? 30_000;
    const reconnectMinMs = config.reconnect?.minMs ?? 1_000;
    const throttleMinMs = config.throttle?.minMs ?? 1_000;
    this.sessions = new SmppSessions(
      {
        host: config.host,
        port: config.port,
        systemId: config.systemId,
        password: config.password,
        systemType: config.systemType ?? "",
        binds: config.binds ?? 1,
        bindMode: config.bindMode ?? "transceiver",
        window: config.window ?? 10,
        // A short submit timeout must not cut off a slow bind: that would only make the next bind slower still.
        bindTimeoutMs: Math.max(this.submitTimeoutMs, MIN_BIND_TIMEOUT_MS),
        enquireLinkMs: (config.enquireLinkSeconds ?? 30) * 1000,
        reconnectMinMs,
        reconnectMaxMs: Math.max(reconnectMinMs, config.reconnect?.maxMs ?? 30_000),
        submitTimeoutMs: this.submitTimeoutMs,
        throttleMinMs,
        throttleMaxMs: Math.max(throttleMinMs, config.throttle?.maxMs ?? 30_000),
      },
      {
        running: () => this.state === "running",
        onDeliverSm: (session, pdu, raw) => this.track(this.inbound.answer(session, pdu, raw)),
      },
      log,
    );
    this.inbound = new DeliverSmHandler(() => this.events!, config.reassemblyTimeoutMs ?? 60_000, log);
  }

  async start(events: CarrierEvents): Promise<void> {
    if (this.state !== "new") throw new Error(`SMPP carrier cannot start: it is ${this.state}`);
    this.events = events;
    this.state = "running";
    this.sessions.connect();
  }

  submit(part: OutboundPart, departure?: Departure): Promise<SubmitResult> {
    const work = this.submitPart(part, departure);
    this.track(work);
    return work;
  }

  connectionState(): CarrierState {
    const current = this.sessions.connectionState();
    if (current.state !== "bound" && (this.state === "stopping" || this.state === "stopped"))
      return { state: "down", detail: `the SMPP carrier is ${this.state}`, since: current.since };
    return current;
  }

  submitWindow(): { inUse: number; size: number } {
    return this.sessions.submitWindow();
  }

  async stop(): Promise<void> {
    if (this.state !== "running") return;
    this.state = "stopping";
    this.sessions.close();

    await Promise.race([Promise.allSettled([...this.busy]), delay(this.submitTimeoutMs)]);
    await this.inbound.flush();
    await this.sessions.unbind();
    this.state = "stopped";
    this.log.info("smpp: stopped");
  }

  private track(work: Promise<unknown>): void {
    this.busy.add(work);
    const forget = (): void => void this.busy.delete(work);
    work.then(forget, forget);
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

    const acquired = await this.sessions.acquire();
    if (!acquired.ok) return { ok: false, temporary: true, code: "NOT_BOUND", detail: acquired.detail };
    const { session } = acquired;
    let result: SubmitResult | undefined;
    try {
      // A part that waited for a window slot may have to wait a little more, so the number's pace holds on the wire.
      const waiting = departure?.leave();
      if (waiting) await waiting;
      const { link } = session;
      if (!link.bound || !link.session)
        return { ok: false, temporary: true, code: "NOT_BOUND", detail: "the connection to the SMSC closed" };
      result = await sendSubmitSm(link.session, part, encoded, departure, {
        timeoutMs: this.submitTimeoutMs,
        inflight: session.inflight,
        log: session.log,
      });
      return result;
    } finally {
      this.sessions.release(session, result);
    }
  }
}
