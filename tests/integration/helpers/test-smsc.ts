// An SMSC for tests, on the `smpp` package's own server, listening on a free loopback port. It records what the
// ESME sends (both as the package decodes it and as raw bytes read off the wire) and is told how to answer.
import smpp from "smpp";
import type { AddressInfo } from "node:net";

export interface ReceivedSubmit {
  sequence: number;
  sourceAddr: string;
  sourceTon: number;
  sourceNpi: number;
  destinationAddr: string;
  destTon: number;
  destNpi: number;
  esmClass: number;
  registeredDelivery: number;
  dataCoding: number;
  /** short_message exactly as sent. */
  shortMessage: Buffer;
  /** short_message as the `smpp` package decodes it: UDH information elements and the text in its own tables. */
  decoded: { udh?: Buffer[]; message: string | Buffer };
  /** The message_payload TLV exactly as sent, if any. */
  messagePayload?: Buffer;
  /** validity_period exactly as sent ("" when none). */
  validityPeriod: string;
}

export interface ReceivedBind {
  systemId: string;
  password: string;
  systemType: string;
  interfaceVersion: number;
  accepted: boolean;
}

/** How to answer one submit_sm: a command_status (0 by default) and how long to wait first. */
export interface SubmitAnswer {
  status?: number;
  delayMs?: number;
  /** Never answer. */
  silent?: boolean;
}

const HEADER_LENGTH = 16;

/**
 * Reads the raw short_message and message_payload TLV of a submit_sm (SMPP 3.4 §4.4.1), independently of the code
 * under test.
 */
function rawUserData(pdu: Buffer): { shortMessage: Buffer; messagePayload?: Buffer; validityPeriod: string } {
  let offset = HEADER_LENGTH;
  const skipCString = (): void => {
    offset = pdu.indexOf(0, offset) + 1;
  };
  skipCString(); // service_type
  offset += 2; // source ton, npi
  skipCString(); // source_addr
  offset += 2; // dest ton, npi
  skipCString(); // destination_addr
  offset += 3; // esm_class, protocol_id, priority_flag
  skipCString(); // schedule_delivery_time
  const validityStart = offset;
  skipCString(); // validity_period
  const validityPeriod = pdu.subarray(validityStart, offset - 1).toString("latin1");
  offset += 4; // registered_delivery, replace_if_present_flag, data_coding, sm_default_msg_id
  const length = pdu[offset]!;
  const shortMessage = Buffer.from(pdu.subarray(offset + 1, offset + 1 + length));
  let messagePayload: Buffer | undefined;
  for (offset += 1 + length; offset + 4 <= pdu.length; offset += 4 + pdu.readUInt16BE(offset + 2)) {
    if (pdu.readUInt16BE(offset) === 0x0424) {
      messagePayload = Buffer.from(pdu.subarray(offset + 4, offset + 4 + pdu.readUInt16BE(offset + 2)));
    }
  }
  return { shortMessage, messagePayload, validityPeriod };
}

export class TestSmsc {
  readonly binds: ReceivedBind[] = [];
  readonly submits: ReceivedSubmit[] = [];
  readonly enquireLinks: number[] = [];
  readonly unbinds: number[] = [];
  /** Credentials a bind must carry. */
  systemId = "parley";
  password = "secret";
  answerEnquireLink = true;
  /** Decides the answer to each submit_sm (index counts from 0 over the SMSC's life). */
  answer: (submit: ReceivedSubmit, index: number) => SubmitAnswer = () => ({});
  /** submit_sm received and not yet answered; and the most there ever were. */
  outstanding = 0;
  maxOutstanding = 0;

  private nextMessageId = 1;
  private readonly bound = new WeakSet<smpp.Session>();

  private constructor(private readonly server: smpp.Server) {}

  static start(): Promise<TestSmsc> {
    return TestSmsc.startOn(0);
  }

  /** Listens on the given port (0: a free one). */
  static async startOn(port: number): Promise<TestSmsc> {
    const server = smpp.createServer();
    const smsc = new TestSmsc(server);
    server.on("session", (session: smpp.Session) => smsc.serve(session));
    await new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      server.listen(port, "127.0.0.1", () => resolve());
    });
    return smsc;
  }

  get port(): number {
    return (this.server.address() as AddressInfo).port;
  }

  /** A server's environment for the SMPP carrier bound to this SMSC. */
  get carrierEnv(): Record<string, string> {
    return {
      CARRIER: "smpp",
      SMPP_HOST: "127.0.0.1",
      SMPP_PORT: String(this.port),
      SMPP_SYSTEM_ID: this.systemId,
      SMPP_PASSWORD: this.password,
    };
  }

  /** The sessions currently connected and bound. */
  get boundSessions(): smpp.Session[] {
    return this.server.sessions.filter((session) => this.bound.has(session));
  }

  /** Sends a deliver_sm to the bound ESME and resolves with the command_status of its deliver_sm_resp. */
  deliver(fields: Record<string, unknown>): Promise<number> {
    const session = this.boundSessions.at(-1);
    if (!session) throw new Error("no ESME is bound");
    return new Promise((resolve, reject) => {
      const sent = session.deliver_sm(
        {
          source_addr_ton: 1,
          source_addr_npi: 1,
          dest_addr_ton: 1,
          dest_addr_npi: 1,
          data_coding: 0,
          ...fields,
        },
        (resp) => resolve(resp.command_status),
      );
      if (!sent) reject(new Error("the ESME's socket is closed"));
    });
  }

  /** Cuts every connection without unbinding, as a crashing SMSC or a broken network would. */
  dropConnections(): void {
    for (const session of [...this.server.sessions]) session.destroy();
  }

  async close(): Promise<void> {
    this.dropConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private serve(session: smpp.Session): void {
    const rawSubmits = new Map<number, Buffer>();
    let pending = Buffer.alloc(0) as Buffer;
    // The package reads in paused mode; 'data' still reports every chunk it reads, so this sees the wire bytes.
    session.socket.on("data", (chunk: Buffer) => {
      pending = Buffer.concat([pending, chunk]);
      while (pending.length >= 4 && pending.length >= pending.readUInt32BE(0)) {
        const pdu = pending.subarray(0, pending.readUInt32BE(0));
        if (pdu.readUInt32BE(4) === 0x00000004) rawSubmits.set(pdu.readUInt32BE(12), pdu);
        pending = pending.subarray(pdu.length);
      }
    });
    session.on("error", () => session.destroy());

    session.on("bind_transceiver", (pdu: smpp.PDU) => {
      const bind: ReceivedBind = {
        systemId: String(pdu.system_id),
        password: String(pdu.password),
        systemType: String(pdu.system_type),
        interfaceVersion: Number(pdu.interface_version),
        accepted: pdu.system_id === this.systemId && pdu.password === this.password,
      };
      this.binds.push(bind);
      if (!bind.accepted) {
        session.send(pdu.response({ command_status: smpp.errors.ESME_RINVPASWD }), undefined, () => session.close());
        return;
      }
      this.bound.add(session);
      session.send(pdu.response({ system_id: "TESTSMSC" }));
    });

    session.on("submit_sm", (pdu: smpp.PDU) => {
      const raw = rawSubmits.get(pdu.sequence_number);
      rawSubmits.delete(pdu.sequence_number);
      const submit: ReceivedSubmit = {
        sequence: pdu.sequence_number,
        sourceAddr: String(pdu.source_addr),
        sourceTon: Number(pdu.source_addr_ton),
        sourceNpi: Number(pdu.source_addr_npi),
        destinationAddr: String(pdu.destination_addr),
        destTon: Number(pdu.dest_addr_ton),
        destNpi: Number(pdu.dest_addr_npi),
        esmClass: Number(pdu.esm_class),
        registeredDelivery: Number(pdu.registered_delivery),
        dataCoding: Number(pdu.data_coding),
        ...(raw ? rawUserData(raw) : { shortMessage: Buffer.alloc(0), validityPeriod: "" }),
        decoded: pdu.short_message as ReceivedSubmit["decoded"],
      };
      const index = this.submits.push(submit) - 1;
      const answer = this.answer(submit, index);
      this.outstanding++;
      this.maxOutstanding = Math.max(this.maxOutstanding, this.outstanding);
      if (answer.silent) return;
      const respond = (): void => {
        this.outstanding--;
        const status = answer.status ?? 0;
        session.send(
          pdu.response(
            status ? { command_status: status } : { message_id: `M${String(this.nextMessageId++).padStart(6, "0")}` },
          ),
        );
      };
      if (answer.delayMs) setTimeout(respond, answer.delayMs);
      else respond();
    });

    session.on("enquire_link", (pdu: smpp.PDU) => {
      this.enquireLinks.push(Date.now());
      if (this.answerEnquireLink) session.send(pdu.response());
    });

    session.on("unbind", (pdu: smpp.PDU) => {
      this.unbinds.push(Date.now());
      this.bound.delete(session);
      session.send(pdu.response());
    });
  }
}
