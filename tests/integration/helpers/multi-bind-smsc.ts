// An SMSC for tests of an ESME that binds several sessions, on the `smpp` package's own server, listening on a free
// loopback port. Unlike test-smsc.ts it keeps every bind apart: its kind (transceiver, transmitter, receiver), the
// submit_sm it carried and how many were outstanding on it at once; it delivers on, and drops, one chosen session.
import smpp from "smpp";
import type { AddressInfo } from "node:net";
import type { SubmitAnswer } from "./test-smsc";

export type SmscBindType = "transceiver" | "transmitter" | "receiver";

export interface SmscSession {
  /** 1 for the first bind the SMSC accepted, 2 for the next, … (a reconnect is a new session). */
  number: number;
  bindAs: SmscBindType;
  session: smpp.Session;
  /** Bound and connected. */
  bound: boolean;
  submits: SmscSubmit[];
  outstanding: number;
  maxOutstanding: number;
}

export interface SmscSubmit {
  session: SmscSession;
  /** short_message as the package decodes it (data_coding 0). */
  text: string;
  /** When it was read off the socket (Date.now()). */
  at: number;
  /** The message_id of an accepted submit. */
  messageId?: string;
}

export class MultiBindSmsc {
  /** Every session the SMSC accepted a bind on, in order. */
  readonly sessions: SmscSession[] = [];
  /** Every submit_sm, in the order read, on whichever session. */
  readonly submits: SmscSubmit[] = [];
  unbinds = 0;
  systemId = "parley";
  password = "secret";
  /** Bind kinds the SMSC refuses (ESME_RBINDFAIL) for now. */
  refuse = new Set<SmscBindType>();
  /** Decides the answer to each submit_sm. */
  answer: (submit: SmscSubmit) => SubmitAnswer = () => ({});

  private nextMessageId = 1;

  private constructor(private readonly server: smpp.Server) {}

  static async start(): Promise<MultiBindSmsc> {
    const server = smpp.createServer();
    const smsc = new MultiBindSmsc(server);
    server.on("session", (session: smpp.Session) => smsc.serve(session));
    await new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      server.listen(0, "127.0.0.1", () => resolve());
    });
    return smsc;
  }

  get port(): number {
    return (this.server.address() as AddressInfo).port;
  }

  /** The sessions bound now. */
  get bound(): SmscSession[] {
    return this.sessions.filter((session) => session.bound);
  }

  /** Sends a deliver_sm on the given session and resolves with the command_status of its deliver_sm_resp. */
  deliver(on: SmscSession, fields: Record<string, unknown>): Promise<number> {
    return new Promise((resolve, reject) => {
      const sent = on.session.deliver_sm(
        { source_addr_ton: 1, source_addr_npi: 1, dest_addr_ton: 1, dest_addr_npi: 1, data_coding: 0, ...fields },
        (resp) => resolve(resp.command_status),
      );
      if (!sent) reject(new Error(`session ${on.number} is closed`));
    });
  }

  /** Cuts one session without unbinding, as a broken network would. */
  drop(session: SmscSession): void {
    session.session.destroy();
  }

  async close(): Promise<void> {
    for (const session of [...this.server.sessions]) session.destroy();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private serve(session: smpp.Session): void {
    let record: SmscSession | undefined;
    session.on("error", () => session.destroy());
    session.on("close", () => {
      if (record) record.bound = false;
    });

    for (const bindAs of ["transceiver", "transmitter", "receiver"] as const) {
      session.on(`bind_${bindAs}`, (pdu: smpp.PDU) => {
        const refused = this.refuse.has(bindAs) || pdu.system_id !== this.systemId || pdu.password !== this.password;
        if (refused) {
          session.send(pdu.response({ command_status: smpp.errors.ESME_RBINDFAIL }), undefined, () => session.close());
          return;
        }
        record = {
          number: this.sessions.length + 1,
          bindAs,
          session,
          bound: true,
          submits: [],
          outstanding: 0,
          maxOutstanding: 0,
        };
        this.sessions.push(record);
        session.send(pdu.response({ system_id: "MULTISMSC" }));
      });
    }

    session.on("submit_sm", (pdu: smpp.PDU) => {
      if (!record) return void session.send(pdu.response({ command_status: smpp.errors.ESME_RINVBNDSTS }));
      const on = record;
      const submit: SmscSubmit = {
        session: on,
        text: String((pdu.short_message as { message: unknown }).message),
        at: Date.now(),
      };
      this.submits.push(submit);
      on.submits.push(submit);
      // A receiver may not submit (SMPP 3.4 §2.2).
      const answer: SubmitAnswer =
        on.bindAs === "receiver" ? { status: smpp.errors.ESME_RINVBNDSTS } : this.answer(submit);
      on.outstanding++;
      on.maxOutstanding = Math.max(on.maxOutstanding, on.outstanding);
      if (answer.silent) return;
      const respond = (): void => {
        on.outstanding--;
        const status = answer.status ?? 0;
        if (status === 0) submit.messageId = `M${String(this.nextMessageId++).padStart(6, "0")}`;
        session.send(pdu.response(status ? { command_status: status } : { message_id: submit.messageId }));
      };
      if (answer.delayMs) setTimeout(respond, answer.delayMs);
      else respond();
    });

    session.on("enquire_link", (pdu: smpp.PDU) => session.send(pdu.response()));

    session.on("unbind", (pdu: smpp.PDU) => {
      this.unbinds++;
      if (record) record.bound = false;
      session.send(pdu.response());
    });
  }
}
