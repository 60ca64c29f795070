import smpp from "smpp";
import type { Logger } from "../../log";
import { reconnectDelay } from "./reconnect-backoff";
import { ESME_RINVCMDID, statusCode, statusName } from "./smpp-status";
import { tapRawPdus } from "./tap-raw-pdus";

// One SMPP session to the SMSC: connect, bind (as a transceiver, a transmitter or a receiver), enquire_link, the
// SMSC's own unbind, and reconnecting with a backoff whenever the connection closes, until the carrier stops. What
// travels over the bound link (submit_sm, deliver_sm) is the carrier's; the link hands it the deliver_sm it receives.

const COMMAND_ID_DELIVER_SM = 0x00000005;
/** Longest wait for unbind_resp and the close on stop(). */
const STOP_STEP_MS = 5_000;
/** lastError of a link that has not failed yet. */
export const NOT_CONNECTED_YET = "not connected yet";

export type BindType = "transceiver" | "transmitter" | "receiver";

export interface LinkSettings {
  host: string;
  port: number;
  systemId: string;
  password: string;
  systemType: string;
  bindAs: BindType;
  /** A TCP connect plus bind not done within this is abandoned. */
  bindTimeoutMs: number;
  enquireLinkMs: number;
  reconnectMinMs: number;
  reconnectMaxMs: number;
}

export interface LinkHandlers {
  /** Whether the carrier still runs: a bind completed after stop() is dropped, and nothing reconnects. */
  running(): boolean;
  /** A deliver_sm, with its raw bytes as they came (undefined if they were not seen); the handler answers it. */
  onDeliverSm(session: smpp.Session, pdu: smpp.PDU, raw: Buffer | undefined): void;
  /** The connection closed: submits still waiting for their submit_sm_resp will not get it. */
  onClosed(): void;
  /** `bound` changed. */
  onBoundChanged(): void;
}

export function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms).unref());
}

export class SmppLink {
  session?: smpp.Session;
  bound = false;
  /** When `bound` last changed (or the link was made): the dashboard's "bound since" / "down since". */
  boundChangedAt = new Date();
  lastError = NOT_CONNECTED_YET;
  private attempt = 0;
  private reconnectTimer?: NodeJS.Timeout;
  private bindTimer?: NodeJS.Timeout;
  private enquireTimer?: NodeJS.Timeout;

  constructor(
    private readonly settings: LinkSettings,
    private readonly handlers: LinkHandlers,
    private readonly log: Logger,
  ) {}

  connect(): void {
    const { host, port, systemId } = this.settings;
    this.log.info({ host, port, systemId, attempt: this.attempt }, "smpp: connecting");
    const session = smpp.connect({ host, port });
    this.session = session;
    // A part leaves when it is written (pacing is measured there), so the kernel must not hold it back: with Nagle's
    // algorithm a small PDU waits while an earlier segment (a deliver_sm_resp, say) is unacknowledged, up to the
    // SMSC's delayed ACK, and then reaches the SMSC late, less than an interval before the next part.
    session.socket.setNoDelay(true);
    writeTogether(session);

    const rawDeliverSms = new Map<number, Buffer>();
    tapRawPdus(session.socket, (pdu) => {
      if (pdu.readUInt32BE(4) === COMMAND_ID_DELIVER_SM) rawDeliverSms.set(pdu.readUInt32BE(12), pdu);
    });

    // Covers a TCP connect that hangs as well as a bind nobody answers.
    this.bindTimer = setTimeout(() => {
      this.lastError = `not bound within ${this.settings.bindTimeoutMs} ms`;
      this.log.warn({ host, port }, `smpp: ${this.lastError}`);
      session.destroy();
    }, this.settings.bindTimeoutMs);

    session.on("connect", () => {
      const bind = {
        transceiver: session.bind_transceiver,
        transmitter: session.bind_transmitter,
        receiver: session.bind_receiver,
      }[this.settings.bindAs];
      bind.call(
        session,
        {
          system_id: systemId,
          password: this.settings.password,
          system_type: this.settings.systemType,
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

  /** Whether submit_sm may go over this link (once bound). */
  get canTransmit(): boolean {
    return this.settings.bindAs !== "receiver";
  }

  /** Whether the SMSC delivers receipts and messages over this link. */
  get canReceive(): boolean {
    return this.settings.bindAs !== "transmitter";
  }

  /** No more reconnecting. */
  stopReconnecting(): void {
    clearTimeout(this.reconnectTimer);
  }

  /** Unbinds (waiting for unbind_resp) and closes, each step bounded; destroys a link that is not bound. */
  async close(): Promise<void> {
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
  }

  private setBound(bound: boolean): void {
    if (this.bound === bound) return;
    this.boundChangedAt = new Date();
    this.bound = bound;
    this.handlers.onBoundChanged();
  }

  private onBindResp(session: smpp.Session, resp: smpp.PDU): void {
    clearTimeout(this.bindTimer);
    if (session !== this.session) return;
    if (!this.handlers.running()) {
      session.destroy();
      return;
    }
    if (resp.command_status !== 0) {
      const status = resp.command_status;
      this.lastError = `bind_${this.settings.bindAs} refused: ${statusName(status)} (${statusCode(status)})`;
      this.log.error({ systemId: this.settings.systemId, status: statusCode(status) }, `smpp: ${this.lastError}`);
      session.destroy();
      return;
    }
    this.attempt = 0;
    this.lastError = "";
    this.log.info({ systemId: this.settings.systemId, smsc: resp.system_id }, `smpp: bound as ${this.settings.bindAs}`);
    this.startEnquireLink(session);
    this.setBound(true);
  }

  /** One enquire_link still unanswered when the next is due means the link is dead: it is closed and reconnected. */
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
    }, this.settings.enquireLinkMs);
  }

  private onClose(session: smpp.Session): void {
    if (session !== this.session) return;
    const wasBound = this.bound;
    this.setBound(false);
    this.session = undefined;
    this.clearSessionTimers();
    this.handlers.onClosed();
    if (!this.handlers.running()) return;

    this.lastError ||= "connection closed by the SMSC";
    const delayMs = reconnectDelay(this.attempt, this.settings.reconnectMinMs, this.settings.reconnectMaxMs);
    this.attempt++;
    this.log.warn(
      { wasBound, reason: this.lastError, attempt: this.attempt, delayMs },
      "smpp: connection closed; reconnecting",
    );
    this.reconnectTimer = setTimeout(() => this.connect(), delayMs);
  }

  private clearSessionTimers(): void {
    clearTimeout(this.bindTimer);
    clearInterval(this.enquireTimer);
    this.bindTimer = undefined;
    this.enquireTimer = undefined;
  }

  private onPdu(session: smpp.Session, pdu: smpp.PDU, rawDeliverSms: Map<number, Buffer>): void {
    if (pdu.isResponse()) return; // the package routes responses to the request's callback
    switch (pdu.command) {
      case "deliver_sm": {
        const raw = rawDeliverSms.get(pdu.sequence_number);
        rawDeliverSms.delete(pdu.sequence_number);
        this.handlers.onDeliverSm(session, pdu, raw);
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
}

/**
 * The PDUs a session sends together leave in one write rather than a system call each: the deliver_sm_resp for a
 * batch of receipts read at once, and the submit_sm for the window slots a batch of submit_sm_resp freed. The socket
 * is corked at the first PDU and uncorked by process.nextTick: what the socket's handler sends goes out once it
 * returns, and what the promise continuations it resolved send (the submits) in a second write, when the tick
 * queue is run again after them. A part still leaves, and its departure is taken, within the same turn.
 */
function writeTogether(session: smpp.Session): void {
  const send = session.send.bind(session);
  const socket = session.socket;
  const uncork = () => socket.uncork();
  session.send = (...args: Parameters<smpp.Session["send"]>) => {
    if (socket.writableCorked === 0) {
      socket.cork();
      process.nextTick(uncork);
    }
    return send(...args);
  };
}
