import { expect } from "vitest";
import pg from "pg";
import type { TestAccount } from "../../helpers/factories";
import type { WebhookReceiver } from "../../helpers/webhook-receiver";
import type { AcceptedMessage, Load } from "./load";
import type { RecordingSmsc, SmscSubmit, WireArrival } from "./smsc-process";

// The checker every fault scenario ends with, in the manner of a total-queue checker: the history is what the API
// accepted (the load's record of 200/202 answers), what the SMSC took (every submit_sm it read, with the id and the
// answer it gave), when each submit_sm went on the wire to it (the kernel's timestamp, see smpp-wire-log.py) and
// what the webhook receiver got; it is held against the database's final state. Nothing accepted may be lost; a
// part may reach the SMSC twice only if the answer to the first copy never made it into the database (and then only
// around the fault); no number may send two parts less than a second apart on the wire, whichever worker sent them;
// every delivery-status event reaches the receiver.

const FINAL = ["delivered", "undelivered", "failed", "expired", "rejected"];

/** Reads the database directly, as another process would (PostgreSQL's TIMESTAMP(3) columns read as UTC). */
export function openInspector(url: string): pg.Pool {
  const pool = new pg.Pool({
    connectionString: url,
    max: 3,
    connectionTimeoutMillis: 5_000,
    types: {
      getTypeParser: ((oid: number, format?: string) =>
        oid === 1114
          ? (value: string) => new Date(value.replace(" ", "T") + "Z")
          : pg.types.getTypeParser(oid, format as "text")) as typeof pg.types.getTypeParser,
    },
  });
  pool.on("error", () => undefined); // an idle connection lost when the cluster restarts
  return pool;
}

interface MessageRow {
  id: string;
  fromNumber: string;
  toNumber: string;
  status: string;
  numSegments: number;
}

interface PartRow {
  messageId: string;
  segmentNumber: number;
  carrierMessageId: string;
  status: string;
  submittedAt: Date;
}

interface EventRow {
  id: string;
  messageId: string;
  segmentNumber: number | null;
  status: string;
  attempts: number;
}

export interface FaultWindow {
  /** From when answers to submits may have been lost (Date.now()). */
  from: number;
  /** Until when. */
  to: number;
}

export interface DuplicateSubmit {
  messageId: string;
  segment: number;
  /** The copies the SMSC took that the database does not know (their answers were lost), and the one it recorded. */
  lost: SmscSubmit[];
  recorded: SmscSubmit;
}

export interface CheckReport {
  accepted: number;
  /** Messages in the database the API did not answer for (committed, the answer lost): delivered all the same. */
  unanswered: number;
  parts: number;
  submits: number;
  duplicates: DuplicateSubmit[];
  minGapMs: number;
  /** How long after the departure a worker recorded its part reached the SMSC's port: median and largest, in ms. */
  wireLagMs: { median: number; max: number };
  events: number;
  /** Events the receiver got more than once (at least once delivery). */
  eventsRepeated: number;
  maxEventAttempts: number;
  refused: Record<string, number>;
}

async function messagesOf(db: pg.Pool, accountId: string): Promise<MessageRow[]> {
  const { rows } = await db.query<MessageRow>(
    `SELECT "id", "fromNumber", "toNumber", "status", "numSegments" FROM "Message"
     WHERE "accountId" = $1 AND "direction" = 'outbound'`,
    [accountId],
  );
  return rows;
}

async function eventsOf(db: pg.Pool, accountId: string): Promise<EventRow[]> {
  const { rows } = await db.query<EventRow>(
    `SELECT "id", "messageId", "segmentNumber", "status", "attempts" FROM "WebhookEvent"
     WHERE "accountId" = $1 AND "kind" = 'message-status'`,
    [accountId],
  );
  return rows;
}

/**
 * Waits until every message of the account (those accepted, and any committed whose answer was lost) has its
 * outcome and no delivery-status event is pending; fails with where things stand if that takes longer than
 * `timeoutMs`.
 */
export async function waitForQuiescence(
  db: pg.Pool,
  account: TestAccount,
  load: Load,
  timeoutMs: number,
  describe: () => Promise<string> | string = () => "",
): Promise<number> {
  const started = Date.now();
  let last = "nothing read yet";
  for (;;) {
    try {
      const [messages, events] = await Promise.all([
        messagesOf(db, account.accountId),
        eventsOf(db, account.accountId),
      ]);
      const known = new Set(messages.map((m) => m.id));
      const missing = load.accepted.filter((a) => !known.has(a.messageId));
      const open = messages.filter((m) => !FINAL.includes(m.status));
      const pending = events.filter((e) => e.status === "pending");
      const expectedEvents = messages.reduce((sum, m) => sum + m.numSegments, 0);
      last =
        `${messages.length} messages (${load.accepted.length} accepted, ${missing.length} of them missing), ` +
        `${open.length} without an outcome (${JSON.stringify(open.slice(0, 5))}), ${events.length} of ` +
        `${expectedEvents} status events, ${pending.length} pending`;
      if (missing.length === 0 && open.length === 0 && pending.length === 0 && events.length >= expectedEvents) {
        return Date.now() - started;
      }
    } catch (error) {
      last = `the database could not be read: ${(error as Error).message}`;
    }
    if (Date.now() - started > timeoutMs) {
      throw new Error(`not settled within ${timeoutMs} ms: ${last}\n${await describe()}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

/** Every part's copies at the SMSC, keyed by destination and part number (destinations are unique per message). */
function copiesByPart(submits: SmscSubmit[]): Map<string, SmscSubmit[]> {
  const copies = new Map<string, SmscSubmit[]>();
  for (const submit of submits) {
    const key = `${submit.from}>${submit.to}#${submit.seq}`;
    copies.set(key, [...(copies.get(key) ?? []), submit]);
  }
  return copies;
}

/**
 * The smallest gap between two submit_sm from the same number as they went on the wire to the SMSC (the kernel's
 * times), every copy counted, whichever worker sent it; and the pairs less than a second apart.
 */
export function wireGaps(
  arrivals: WireArrival[],
  describe: (arrival: WireArrival) => string = () => "",
): { minGapMs: number; tooClose: string[] } {
  const byNumber = new Map<string, WireArrival[]>();
  for (const a of arrivals) byNumber.set(a.from, [...(byNumber.get(a.from) ?? []), a]);
  let minGapMs = Infinity;
  const tooClose: string[] = [];
  for (const [number, list] of byNumber) {
    list.sort((a, b) => a.t! - b.t!);
    for (let i = 1; i < list.length; i++) {
      const [a, b] = [list[i - 1]!, list[i]!];
      const gap = b.t! - a.t!;
      minGapMs = Math.min(minGapMs, gap);
      if (gap < 1000) {
        tooClose.push(
          `${number}: ${gap.toFixed(3)} ms between part ${a.part} to ${a.to} (${a.systemType}${describe(a)}) and ` +
            `part ${b.part} to ${b.to} (${b.systemType}${describe(b)})`,
        );
      }
    }
  }
  return { minGapMs, tooClose };
}

export async function checkHistory(input: {
  db: pg.Pool;
  smsc: RecordingSmsc;
  receiver: WebhookReceiver;
  account: TestAccount;
  load: Load;
  /** When answers to submits may have been lost; a part may be submitted twice only if its first copy was then. */
  faultWindow: FaultWindow;
}): Promise<CheckReport> {
  const { db, smsc, receiver, account, load, faultWindow } = input;
  const messages = await messagesOf(db, account.accountId);
  const { rows: parts } = await db.query<PartRow>(
    `SELECT p."messageId", p."segmentNumber", p."carrierMessageId", p."status", p."submittedAt" FROM "MessagePart" p
     JOIN "Message" m ON m."id" = p."messageId" WHERE m."accountId" = $1`,
    [account.accountId],
  );
  const { rows: sentRecords } = await db.query<{ messageId: string; segmentNumber: number; n: string }>(
    `SELECT s."messageId", s."segmentNumber", count(*) AS n FROM "Sdr" s JOIN "Message" m ON m."id" = s."messageId"
     WHERE m."accountId" = $1 AND s."status" = 'message_sent' GROUP BY s."messageId", s."segmentNumber"`,
    [account.accountId],
  );
  const events = await eventsOf(db, account.accountId);

  // Nothing accepted is lost: every accepted message is in the database, delivered.
  const byId = new Map(messages.map((m) => [m.id, m]));
  const accepted = new Map<string, AcceptedMessage>(load.accepted.map((a) => [a.messageId, a]));
  for (const a of load.accepted) {
    const row = byId.get(a.messageId);
    expect(row, `accepted message ${a.messageId} is in the database`).toBeDefined();
    expect(row!.status, `outcome of accepted message ${a.messageId}`).toBe("delivered");
    expect([row!.fromNumber, row!.toNumber, row!.numSegments]).toEqual([a.from, a.to, a.numSegments]);
  }
  // Messages committed whose answer was lost get delivered all the same.
  for (const m of messages) expect(m.status, `outcome of message ${m.id}`).toBe("delivered");

  // Each part was recorded once, from one of the SMSC's copies of that very part; other copies are duplicates,
  // allowed only for a submit whose answer was lost, which only the fault can explain.
  const numbers = new Set(account.numbers);
  const submits = smsc.submits.filter((s) => numbers.has(s.from));
  const copies = copiesByPart(submits);
  const partsOf = new Map(parts.map((p) => [`${p.messageId}#${p.segmentNumber}`, p]));
  const sentCount = new Map(sentRecords.map((r) => [`${r.messageId}#${r.segmentNumber}`, Number(r.n)]));
  const duplicates: DuplicateSubmit[] = [];
  const matched = new Set<string>();
  for (const m of messages) {
    for (let segment = 1; segment <= m.numSegments; segment++) {
      const key = `${m.fromNumber}>${m.toNumber}#${segment}`;
      matched.add(key);
      const part = partsOf.get(`${m.id}#${segment}`);
      expect(part, `part ${segment} of ${m.id} recorded`).toBeDefined();
      expect(part!.status).toBe("delivered");
      expect(sentCount.get(`${m.id}#${segment}`), `message_sent records of part ${segment} of ${m.id}`).toBe(1);
      const seen = copies.get(key) ?? [];
      const recorded = seen.find((s) => s.id === part!.carrierMessageId);
      expect(
        recorded,
        `part ${segment} of ${m.id} is recorded with the id ${part!.carrierMessageId} of a submit the SMSC saw for it`,
      ).toBeDefined();
      expect(recorded!.total).toBe(m.numSegments);
      expect(smsc.answers.get(recorded!.id), `the SMSC's answer to ${recorded!.id}`).toBe(0);
      // A copy the SMSC refused (a temporary error such as ESME_RTHROTTLED) was not taken: it is no duplicate. One
      // it never answered may have been taken: it counts.
      const lost = seen.filter((s) => s !== recorded && (smsc.answers.get(s.id) ?? 0) === 0);
      for (const copy of lost) {
        expect(
          copy.at >= faultWindow.from && copy.at <= faultWindow.to,
          `duplicate ${copy.id} of part ${segment} of ${m.id} (${copy.systemType}, at ${copy.at}) was submitted ` +
            `during the fault (${faultWindow.from}–${faultWindow.to}), when its answer could be lost`,
        ).toBe(true);
      }
      if (lost.length > 0) duplicates.push({ messageId: m.id, segment, lost, recorded: recorded! });
    }
  }
  const strays = [...copies.keys()].filter((key) => !matched.has(key));
  expect(strays, "submits at the SMSC that belong to no message of the account").toEqual([]);

  // At most one part a second leaves each number, on the wire, across both workers and every copy.
  const arrivals = smsc.arrivals.filter((a) => numbers.has(a.from));
  expect(arrivals.filter((a) => a.t === null).length, "submits the kernel gave no timestamp for").toBe(0);
  expect(smsc.wireGaps, "connections whose bytes the wire log missed").toEqual([]);
  // Every submit the SMSC read went over the wire (and some may have gone that the SMSC never read).
  expect(arrivals.length).toBeGreaterThanOrEqual(submits.length);
  // Which departure is which submit the SMSC read (the same part from the same worker, in the same order), and
  // when the worker recorded its departure, if it did.
  const departures = new Map(parts.map((p) => [p.carrierMessageId, p.submittedAt.getTime()]));
  const submitOf = new Map<WireArrival, SmscSubmit>();
  for (const s of submits) {
    const arrival = arrivals.find(
      (a) => !submitOf.has(a) && a.systemType === s.systemType && a.to === s.to && a.part === s.seq,
    );
    if (arrival) submitOf.set(arrival, s);
  }
  const lags: number[] = [];
  for (const [arrival, s] of submitOf) {
    const departed = departures.get(s.id);
    if (departed !== undefined) lags.push(arrival.t! - departed);
  }
  lags.sort((a, b) => a - b);
  const { minGapMs, tooClose } = wireGaps(arrivals, (a) => {
    const s = submitOf.get(a);
    if (!s) return ", never read by the SMSC";
    const departed = departures.get(s.id);
    const recorded = departed === undefined ? "not recorded" : `recorded as left at ${departed}`;
    return `, ${s.id} ${recorded}, on the wire at ${a.t!.toFixed(3)}`;
  });
  expect(tooClose, "parts from one number less than 1,000 ms apart on the wire to the SMSC").toEqual([]);

  // Every delivery-status event was delivered, and the receiver got it.
  const expectedEvents = messages.reduce((sum, m) => sum + m.numSegments, 0);
  expect(events.length, "one delivery-status event per part").toBe(expectedEvents);
  const eventKeys = new Set(events.map((e) => `${e.messageId}#${e.segmentNumber}`));
  expect(eventKeys.size, "no part has two delivery-status events").toBe(events.length);
  expect(events.filter((e) => e.status !== "delivered")).toEqual([]);
  const received = new Map<string, number>();
  for (const request of receiver.requests) {
    const id = String(request.headers["webhook-id"] ?? "");
    received.set(id, (received.get(id) ?? 0) + 1);
  }
  const notReceived = events.filter((e) => !received.has(e.id)).map((e) => e.id);
  expect(notReceived, "events the receiver never got").toEqual([]);

  return {
    accepted: accepted.size,
    unanswered: messages.filter((m) => !accepted.has(m.id)).length,
    parts: parts.length,
    submits: submits.length,
    duplicates,
    minGapMs,
    wireLagMs: { median: lags[Math.floor(lags.length / 2)] ?? NaN, max: lags.at(-1) ?? NaN },
    events: events.length,
    eventsRepeated: events.filter((e) => (received.get(e.id) ?? 0) > 1).length,
    maxEventAttempts: Math.max(0, ...events.map((e) => e.attempts)),
    refused: Object.fromEntries(load.refused),
  };
}
