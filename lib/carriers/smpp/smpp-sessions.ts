/**
 * The SMPP sessions of one carrier, all to the same SMSC with the same account: `binds` transceivers, or `binds`
 * transmitters and `binds` receivers. Each reconnects on its own (smpp-link.ts).
 *
 * The decisions:
 * - Each transmit-capable session has its own window of outstanding submit_sm. A submit takes the bound session
 *   with the most free room (ties in turn); parts that find none queue in arrival order and each takes the first
 *   session that frees a slot, binds, or ends a rest.
 * - A queued part waits for a bind at most submitTimeoutMs, counted while no transmit-capable session is bound; it
 *   waits for room on bound sessions without a limit (a slot frees at the latest when its submit times out).
 * - ESME_RTHROTTLED or ESME_RMSGQFUL on a session makes that session rest (throttle-rest.ts) while the others go on.
 * - The carrier is up while a transmit-capable session and, with separate receivers, a receiver are bound.
 */
import type smpp from "smpp";
import type { CarrierState, SubmitResult } from "../carrier";
import type { Logger } from "../../log";
import { type BindType, NOT_CONNECTED_YET, SmppLink, type LinkSettings } from "./smpp-link";
import { THROTTLING_STATUSES, statusCode, statusName } from "./smpp-status";
import { SubmitWindow } from "./submit-window";
import { ThrottleRest } from "./throttle-rest";

export type BindMode = "transceiver" | "transmitter-receiver";

export interface SessionsSettings extends Omit<LinkSettings, "bindAs"> {
  binds: number;
  bindMode: BindMode;
  /** Outstanding submit_sm at most, per transmit-capable session. */
  window: number;
  /** How long a submit waits for a bind. */
  submitTimeoutMs: number;
  throttleMinMs: number;
  throttleMaxMs: number;
}

export interface SessionsHandlers {
  /** Whether the carrier still runs. */
  running(): boolean;
  /** A deliver_sm on any receive-capable session; the handler answers it on `session`. */
  onDeliverSm(session: smpp.Session, pdu: smpp.PDU, raw: Buffer | undefined): void;
}

/** A session that submits: its link, its window, its submits awaiting their resp, its throttle rest. */
export class TransmitSession {
  readonly window: SubmitWindow;
  /** Settles each submit on this session still waiting for its submit_sm_resp. */
  readonly inflight = new Set<(result: SubmitResult) => void>();
  readonly rest: ThrottleRest;
  restTimer?: NodeJS.Timeout;

  constructor(
    readonly link: SmppLink,
    readonly log: Logger,
    settings: SessionsSettings,
  ) {
    this.window = new SubmitWindow(settings.window);
    this.rest = new ThrottleRest(settings.throttleMinMs, settings.throttleMaxMs);
  }
}

/** A slot on a session's window for one submit (give it back with release), or why there is none. */
export type Acquired = { ok: true; session: TransmitSession } | { ok: false; detail: string };

interface Waiter {
  resolve(acquired: Acquired): void;
  /** Runs while no transmit-capable session is bound. */
  timer?: NodeJS.Timeout;
}

export const MAX_BINDS = 16;

export class SmppSessions {
  private readonly links: SmppLink[] = [];
  private readonly transmitters: TransmitSession[] = [];
  private readonly waiting: Waiter[] = [];
  /** Whether queued parts may have a wait for a bind running (see pump). */
  private bindWaits = false;
  /** Where the next tie between sessions starts (round-robin). */
  private cursor = 0;
  private closed = false;
  private up = false;
  private everUp = false;
  /** When the carrier last went up or down (or was made): the dashboard's "bound since" / "down since". */
  private since = new Date();

  constructor(
    private readonly settings: SessionsSettings,
    private readonly handlers: SessionsHandlers,
    private readonly log: Logger,
  ) {
    const { binds, bindMode } = settings;
    if (!Number.isInteger(binds) || binds < 1 || binds > MAX_BINDS)
      throw new RangeError(`binds must be an integer from 1 to ${MAX_BINDS}, got ${binds}`);
    if (bindMode !== "transceiver" && bindMode !== "transmitter-receiver")
      throw new RangeError(`bindMode must be transceiver or transmitter-receiver, got ${String(bindMode)}`);
    const types: BindType[] = bindMode === "transceiver" ? ["transceiver"] : ["transmitter", "receiver"];
    for (const bindAs of types) for (let i = 1; i <= binds; i++) this.add(bindAs, i);
  }

  connect(): void {
    for (const link of this.links) link.connect();
  }

  /** Resolves with a slot on the best session, once there is one; see the decisions above. */
  acquire(): Promise<Acquired> {
    if (this.closed) return Promise.resolve({ ok: false, detail: "the SMPP carrier is stopping" });
    return new Promise((resolve) => {
      this.waiting.push({ resolve });
      this.pump();
    });
  }

  /** Gives the slot back, after the session has learnt from the submit's result (throttled, accepted). */
  release(session: TransmitSession, result: SubmitResult | undefined): void {
    if (result?.ok) session.rest.accepted();
    else if (result && THROTTLING_STATUSES.has(Number(result.code))) this.throttled(session, Number(result.code));
    session.window.release();
    this.pump();
  }

  /** No more submits and no more reconnecting; parts still queued are refused. */
  close(): void {
    this.closed = true;
    for (const waiter of this.waiting.splice(0)) {
      clearTimeout(waiter.timer);
      waiter.resolve({ ok: false, detail: "the SMPP carrier is stopping" });
    }
    for (const session of this.transmitters) clearTimeout(session.restTimer);
    for (const link of this.links) link.stopReconnecting();
  }

  /** Unbinds every session (each waiting for its unbind_resp) and closes them. */
  async unbind(): Promise<void> {
    await Promise.all(this.links.map((link) => link.close()));
  }

  connectionState(): CarrierState {
    const { host, port, systemId } = this.settings;
    const since = this.since;
    const where = `${host}:${port}`;
    const count =
      this.links.length > 1
        ? `, ${this.links.filter((link) => link.bound).length} of ${this.links.length} binds up`
        : "";
    if (this.up) return { state: "bound", detail: `${where} as ${systemId}${count}`, since };
    // Before the first failure it is still on its way; after one, it is down until it is up again.
    const failed = this.links.some((link) => !link.bound && link.lastError !== NOT_CONNECTED_YET);
    if (!this.everUp && !failed) return { state: "connecting", detail: `${where}${count}`, since };
    const canTransmit = this.links.some((link) => link.bound && link.canTransmit);
    const reason = canTransmit
      ? `no receiver bound: ${this.reason((link) => !link.canTransmit)}`
      : this.reason((link) => link.canTransmit);
    return { state: "down", detail: `${reason}; reconnecting to ${where}${count}`, since };
  }

  submitWindow(): { inUse: number; size: number } {
    let inUse = 0;
    let size = 0;
    for (const { window } of this.transmitters) {
      inUse += window.outstanding;
      size += window.size;
    }
    return { inUse, size };
  }

  private add(bindAs: BindType, number: number): void {
    const log = this.log.child({ bind: `${bindAs} ${number}` });
    let transmitter: TransmitSession | undefined;
    const link = new SmppLink(
      { ...this.settings, bindAs },
      {
        running: this.handlers.running,
        onDeliverSm: this.handlers.onDeliverSm,
        onClosed: () => transmitter && settleInflight(transmitter),
        onBoundChanged: () => this.boundChanged(),
      },
      log,
    );
    this.links.push(link);
    if (link.canTransmit) this.transmitters.push((transmitter = new TransmitSession(link, log, this.settings)));
  }

  private boundChanged(): void {
    const bound = (canTransmit: boolean) => this.links.some((link) => link.bound && link.canTransmit === canTransmit);
    const up = bound(true) && (this.settings.bindMode === "transceiver" || bound(false));
    if (up !== this.up) {
      this.up = up;
      this.since = new Date();
      this.everUp ||= up;
    }
    this.pump();
  }

  private throttled(session: TransmitSession, status: number): void {
    const restMs = session.rest.throttled();
    if (restMs === undefined) return; // already resting: logged when the rest began
    session.log.warn(
      { status: statusCode(status), detail: statusName(status), restMs },
      "smpp: the SMSC throttles this bind; it takes no submits for a while, the other binds go on",
    );
    this.wakeAfterRest(session, restMs);
  }

  /** Hands the session's room to queued parts once its rest is over (a timer may fire a little early). */
  private wakeAfterRest(session: TransmitSession, restMs: number): void {
    clearTimeout(session.restTimer);
    session.restTimer = setTimeout(() => {
      const remainingMs = session.rest.remainingMs();
      if (remainingMs > 0) this.wakeAfterRest(session, remainingMs);
      else this.pump();
    }, restMs);
    session.restTimer.unref();
  }

  /** Hands free slots to queued parts in arrival order; starts or stops their wait for a bind. */
  private pump(): void {
    while (this.waiting.length > 0) {
      const session = this.pick();
      if (!session) break;
      session.window.tryAcquire();
      const waiter = this.waiting.shift()!;
      clearTimeout(waiter.timer);
      waiter.resolve({ ok: true, session });
    }
    // The wait for a bind runs only while no transmit-capable session is bound: started for every queued part then,
    // stopped for all once one binds. With a session bound and no wait running (the usual case: parts queue for
    // room under load, thousands of them), nothing is left to do, rather than a look at every queued part for each
    // slot given back.
    const transmitBound = this.transmitters.some(({ link }) => link.bound);
    if (transmitBound && !this.bindWaits) return;
    for (const waiter of this.waiting) {
      if (transmitBound) {
        clearTimeout(waiter.timer);
        waiter.timer = undefined;
      } else {
        waiter.timer ??= setTimeout(() => this.giveUp(waiter), this.settings.submitTimeoutMs);
      }
    }
    this.bindWaits = !transmitBound && this.waiting.length > 0;
  }

  /** The bound, unresting session with the most free room; among equals, the next in turn. */
  private pick(): TransmitSession | undefined {
    const now = Date.now();
    const count = this.transmitters.length;
    let best: TransmitSession | undefined;
    let bestIndex = 0;
    for (let i = 0; i < count; i++) {
      const index = (this.cursor + i) % count;
      const session = this.transmitters[index]!;
      if (!session.link.bound || session.window.free === 0 || session.rest.resting(now)) continue;
      if (!best || session.window.free > best.window.free) {
        best = session;
        bestIndex = index;
      }
    }
    if (best) this.cursor = (bestIndex + 1) % count;
    return best;
  }

  private giveUp(waiter: Waiter): void {
    const index = this.waiting.indexOf(waiter);
    if (index < 0) return;
    this.waiting.splice(index, 1);
    const reason = this.handlers.running() ? this.reason((link) => link.canTransmit) : "the SMPP carrier is stopping";
    waiter.resolve({
      ok: false,
      detail: `not bound to the SMSC within ${this.settings.submitTimeoutMs} ms: ${reason}`,
    });
  }

  /** Why the sessions that `which` selects are not bound: the first of their errors. */
  private reason(which: (link: SmppLink) => boolean): string {
    return this.links.find((link) => which(link) && !link.bound && link.lastError)?.lastError || "not bound";
  }
}

function settleInflight(session: TransmitSession): void {
  for (const settle of session.inflight) {
    settle({
      ok: false,
      temporary: true,
      code: "CONNECTION_LOST",
      detail: "the connection to the SMSC closed before its submit_sm_resp",
    });
  }
}
