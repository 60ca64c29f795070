import { afterAll, beforeAll, describe, expect, it } from "vitest";
import Database from "better-sqlite3";
import pg from "pg";
import { startServer, type RunningServer } from "../helpers/server";
import { createTestDatabase, testProvider, type TestDatabase } from "../helpers/test-database";
import { call, createTestAccount, releaseFactories, type TestAccount } from "../helpers/factories";
import { sdrTime, waitUntil, type SdrRecord } from "../helpers/wait-for";
import { killAllWorkers, startWorker, type WorkerProcess } from "../helpers/worker-process";
import { sqliteFilePath } from "../../lib/db/sqlite-path";
import { db } from "../../lib/db/client";

// Several delivery workers (`npm run worker`, real processes) on one database, beside a server that runs none:
// they share the numbers through leases and the pacing state through the database, so no part leaves twice and
// no number sends faster than its rate, whichever process sends it; a worker killed outright loses nothing, and
// one stopped with SIGTERM hands its numbers back at once. The same on SQLite (several processes on one file)
// and on PostgreSQL.
let database: TestDatabase;
let server: RunningServer;
let inspect: Inspector;
/** The two workers of the first scenario, started beside the server. */
let pair: [WorkerProcess, WorkerProcess];

const WORKER_ENV = {
  LOG_LEVEL: "warn",
  WORKER_POLL_MS: "50",
  SIMULATOR_RECEIPT_DELAY_MS: "100",
  WORKER_LEASE_SECONDS: "5",
};

beforeAll(async () => {
  // The server and the first two workers start together on the fresh database: each applies the migrations
  // itself, which is safe from several processes at once.
  const t0 = Date.now();
  database = await createTestDatabase();
  const [started, ...workers] = await Promise.all([
    startServer({ database, env: { PARLEY_WORKER: "false" } }),
    startWorker(database.url, WORKER_ENV),
    startWorker(database.url, WORKER_ENV),
  ]);
  server = started;
  pair = workers as [WorkerProcess, WorkerProcess];
  inspect = await openInspector(database.url);
  console.log(`[workers] server and two workers ready in ${Date.now() - t0} ms`);
});

afterAll(async () => {
  const t0 = Date.now();
  await killAllWorkers();
  await inspect?.close();
  await releaseFactories();
  await server?.stop();
  await database?.drop();
  console.log(`[workers] cleaned up in ${Date.now() - t0} ms`);
});

// ---- reading the database directly, as another process would ----------------------------------------------

interface Inspector {
  query<T>(sql: string, params?: unknown[]): Promise<T[]>;
  close(): Promise<void>;
}

async function openInspector(url: string): Promise<Inspector> {
  if (/^file:/i.test(url)) {
    const sqlite = new Database(sqliteFilePath(url), { readonly: true, timeout: 10_000 });
    return {
      query: async <T>(sql: string, params: unknown[] = []) => sqlite.prepare(sql).all(...params) as T[],
      close: async () => void sqlite.close(),
    };
  }
  const pool = new pg.Pool({
    connectionString: url,
    max: 3,
    // TIMESTAMP(3) columns hold UTC without a zone: read them as UTC whatever the machine's zone.
    types: {
      getTypeParser: ((oid: number, format?: string) =>
        oid === 1114
          ? (value: string) => new Date(value.replace(" ", "T") + "Z")
          : pg.types.getTypeParser(oid, format as "text")) as typeof pg.types.getTypeParser,
    },
  });
  return {
    query: async <T>(sql: string, params: unknown[] = []) => {
      let n = 0;
      const { rows } = await pool.query(
        sql.replace(/\?/g, () => `$${++n}`),
        params,
      );
      return rows as T[];
    },
    close: () => pool.end(),
  };
}

/** A DateTime column as milliseconds (a Date from PostgreSQL, an ISO string from SQLite). */
function ms(value: Date | string | null): number | null {
  if (value === null) return null;
  return value instanceof Date ? value.getTime() : Date.parse(value);
}

interface MessageRow {
  id: string;
  fromNumber: string;
  status: string;
  numSegments: number;
  partsSubmitted: number;
}

const messageRows = (accountId: string) =>
  inspect.query<MessageRow>(
    `SELECT "id", "fromNumber", "status", "numSegments", "partsSubmitted" FROM "Message"
     WHERE "accountId" = ? AND "direction" = 'outbound'`,
    [accountId],
  );

interface PartRow {
  messageId: string;
  segmentNumber: number;
  status: string;
  submittedAt: Date | string;
}

const partRows = (accountId: string) =>
  inspect.query<PartRow>(
    `SELECT p."messageId", p."segmentNumber", p."status", p."submittedAt" FROM "MessagePart" p
     JOIN "Message" m ON m."id" = p."messageId" WHERE m."accountId" = ?`,
    [accountId],
  );

interface NumberRow {
  number: string;
  leaseOwner: string | null;
  leaseUntil: Date | string | null;
  nextSendAt: Date | string | null;
}

const numberRows = (accountId: string) =>
  inspect.query<NumberRow>(
    `SELECT "number", "leaseOwner", "leaseUntil", "nextSendAt" FROM "PhoneNumber" WHERE "accountId" = ?`,
    [accountId],
  );

// ---- helpers -----------------------------------------------------------------------------------------------

const sleep = (milliseconds: number) => new Promise((resolve) => setTimeout(resolve, milliseconds));

interface Sent {
  id: string;
  from: string;
  numSegments: number;
}

async function send(account: TestAccount, from: string, body: string): Promise<Sent> {
  const res = await call(server, "POST", "/v3/messages", {
    headers: account.headers,
    body: { accountId: account.accountId, from, to: "14155550123", body },
  });
  expect(res.status, res.text).toBe(200);
  const [info] = res.json.data.messageInfo as { messageId: string; numSegments: number; status: string }[];
  expect(info!.status).toBe("accepted");
  return { id: info!.messageId, from, numSegments: info!.numSegments };
}

/** `perNumber` messages from each of the account's numbers, sent round-robin so that every queue fills at once. */
async function sendBacklog(account: TestAccount, perNumber: number, long: (i: number, n: number) => boolean) {
  const sent: Sent[] = [];
  for (let i = 0; i < perNumber; i++) {
    const round = account.numbers.map((from, n) => {
      const tag = `m${i} n${n}`;
      // 200 GSM characters take two segments (153 + 47); a short text takes one.
      return send(account, from, long(i, n) ? `${tag} ${"x".repeat(200 - tag.length - 1)}` : `${tag} hello`);
    });
    sent.push(...(await Promise.all(round)));
  }
  return sent;
}

async function sdrsOf(account: TestAccount, messageId: string): Promise<SdrRecord[]> {
  const res = await call(server, "GET", `/v3/sdrs/${account.accountId}/${messageId}`, { headers: account.headers });
  expect(res.status).toBe(200);
  return res.json.data.results as SdrRecord[];
}

async function listingStatuses(account: TestAccount): Promise<Map<string, string>> {
  const res = await call(server, "GET", `/v3/messages?accountId=${account.accountId}&direction=outbound&count=1000`, {
    headers: account.headers,
  });
  expect(res.status).toBe(200);
  return new Map(
    (res.json.data.results as { messageId: string; status: string }[]).map((m) => [m.messageId, m.status]),
  );
}

/** Waits until no message of the account is queued, sending or waiting for a receipt. */
async function waitForAllSettled(
  account: TestAccount,
  count: number,
  timeoutMs: number,
  workers: WorkerProcess[],
): Promise<MessageRow[]> {
  try {
    return await waitUntil(
      `all ${count} messages to settle`,
      async () => {
        const rows = await messageRows(account.accountId);
        return rows.length === count && rows.every((r) => !["queued", "sending", "sent"].includes(r.status)) && rows;
      },
      timeoutMs,
      200,
    );
  } catch (error) {
    throw new Error(`${(error as Error).message}\n${await describeState(account, workers)}`, { cause: error });
  }
}

/** What a failure message needs: where the messages, parts and leases stand, and what the workers logged. */
async function describeState(account: TestAccount, workers: WorkerProcess[]): Promise<string> {
  const [messages, parts, numbers] = await Promise.all([
    messageRows(account.accountId),
    partRows(account.accountId),
    numberRows(account.accountId),
  ]);
  const count = (values: string[]) =>
    JSON.stringify(values.reduce<Record<string, number>>((acc, v) => ({ ...acc, [v]: (acc[v] ?? 0) + 1 }), {}));
  const unsettled = messages.filter((m) => ["queued", "sending", "sent"].includes(m.status));
  return [
    `messages by status: ${count(messages.map((m) => m.status))}`,
    `parts by status: ${count(parts.map((p) => p.status))}`,
    `unsettled: ${JSON.stringify(unsettled)}`,
    `numbers: ${JSON.stringify(numbers)}`,
    ...workers.map((w) => `worker ${w.id} output:\n${w.output().slice(-4000)}`),
  ].join("\n");
}

interface Tally {
  /** message_sent times per from-number, in order. */
  sentTimes: Map<string, number[]>;
  /** Segments reserved (`sending`) more than once: the ones that may have left twice. */
  reservedAgain: { messageId: string; segment: number; times: number }[];
}

/**
 * The checks every scenario shares: exactly one `message_sent` per segment (segments 1..n, nothing else), a
 * delivered listing status, exactly numSegments MessagePart rows, and one `sending` per segment unless the
 * message is in `mayRepeat` (in flight when a worker died: at-least-once).
 */
async function checkDelivered(account: TestAccount, sent: Sent[], mayRepeat = new Set<string>()): Promise<Tally> {
  const listing = await listingStatuses(account);
  const parts = await partRows(account.accountId);
  const tally: Tally = { sentTimes: new Map(), reservedAgain: [] };
  for (const message of sent) {
    const segments = Array.from({ length: message.numSegments }, (_, i) => i + 1);
    expect(listing.get(message.id), `listing status of ${message.id}`).toBe("delivered");
    const records = await sdrsOf(account, message.id);
    const of = (status: string) => records.filter((r) => r.status === status);
    const sentRecords = of("message_sent");
    expect(sentRecords.map((r) => r.segmentNumber).sort(), `message_sent of ${message.id}`).toEqual(segments);
    expect(
      of("delivered")
        .map((r) => r.segmentNumber)
        .sort(),
      `delivered of ${message.id}`,
    ).toEqual(segments);
    expect(of("dlr_received")).toHaveLength(message.numSegments);
    for (const segment of segments) {
      const times = of("sending").filter((r) => r.segmentNumber === segment).length;
      if (mayRepeat.has(message.id)) {
        expect(times, `sending of ${message.id} segment ${segment}`).toBeGreaterThanOrEqual(1);
        expect(times).toBeLessThanOrEqual(2);
        if (times > 1) tally.reservedAgain.push({ messageId: message.id, segment, times });
      } else {
        expect(times, `sending of ${message.id} segment ${segment}`).toBe(1);
      }
    }
    const times = tally.sentTimes.get(message.from) ?? [];
    times.push(...sentRecords.map(sdrTime));
    tally.sentTimes.set(message.from, times);
    const rows = parts.filter((p) => p.messageId === message.id);
    expect(rows.map((p) => Number(p.segmentNumber)).sort(), `MessagePart rows of ${message.id}`).toEqual(segments);
    expect(rows.every((p) => p.status === "delivered")).toBe(true);
  }
  for (const times of tally.sentTimes.values()) times.sort((a, b) => a - b);
  return tally;
}

/** At most one segment an interval (a second by default) left each number, whichever worker sent it. */
function expectPaced(tally: Tally, intervalMs = 1000): void {
  for (const [number, times] of tally.sentTimes) {
    const gaps = times.slice(1).map((t, i) => t - times[i]!);
    expect(Math.min(...gaps), `gaps between the parts from ${number}: ${gaps.join(", ")}`).toBeGreaterThanOrEqual(
      intervalMs,
    );
  }
}

function expectNoWorkerErrors(...workers: WorkerProcess[]): void {
  for (const worker of workers) expect(worker.errors(), `errors logged by worker ${worker.id}`).toEqual([]);
}

const sentCount = (messages: MessageRow[]) => messages.filter((m) => m.partsSubmitted > 0).length;

/** When each number's last part left (its latest `message_sent`), in ms. */
async function lastSentByNumber(accountId: string): Promise<Map<string, number>> {
  const rows = await inspect.query<{ fromNumber: string; last: Date | string }>(
    `SELECT m."fromNumber", max(s."createdAt") AS "last" FROM "Sdr" s JOIN "Message" m ON m."id" = s."messageId"
     WHERE m."accountId" = ? AND s."status" = 'message_sent' GROUP BY m."fromNumber"`,
    [accountId],
  );
  return new Map(rows.map((r) => [r.fromNumber, ms(r.last)!]));
}

interface Snapshot {
  messages: MessageRow[];
  parts: PartRow[];
  numbers: NumberRow[];
  lastSent: Map<string, number>;
  now: number;
}

/** How the account's messages, parts and numbers stand, in one line (for failure messages). */
function summary({ messages, parts, numbers, lastSent, now }: Snapshot): string {
  return (
    `${now} sent: ${sentCount(messages)}, reserved: ${messages.filter((m) => m.status === "sending").length}, ` +
    `waiting for receipts: ${parts.filter((p) => p.status === "wait_dlr").length}, ms since each number's last ` +
    `part: ${numbers.map((n) => (lastSent.has(n.number) ? now - lastSent.get(n.number)! : "-")).join(" ")}, ` +
    `holders: ${numbers.map((n) => n.leaseOwner ?? "-").join(" ")}`
  );
}

/**
 * Waits for a moment when no receipt is outstanding for the account and `ready` holds; returns what it returned.
 * A receipt the simulator owes when its worker is killed is delivered by another worker only once the dead one's claim
 * on it runs out (its lease, as for its numbers); the scenarios that end a worker pick a moment when nothing of the
 * kind is pending, so that what they wait for does not wait on that.
 */
async function waitForMoment<T>(
  account: TestAccount,
  what: string,
  ready: (snapshot: Snapshot) => T | null,
  timeoutMs: number,
): Promise<T> {
  const seen: string[] = [];
  try {
    return await waitUntil(
      what,
      async () => {
        const [parts, messages, numbers, lastSent] = await Promise.all([
          partRows(account.accountId),
          messageRows(account.accountId),
          numberRows(account.accountId),
          lastSentByNumber(account.accountId),
        ]);
        const snapshot = { messages, parts, numbers, lastSent, now: Date.now() };
        seen.push(summary(snapshot));
        if (seen.length > 40) seen.shift();
        if (parts.some((p) => p.status === "wait_dlr")) return null;
        return ready(snapshot);
      },
      timeoutMs,
      10,
    );
  } catch (error) {
    throw new Error(`${(error as Error).message}; last seen:\n${seen.join("\n")}`, { cause: error });
  }
}

interface Hold {
  /** The messages reserved (`sending`) and not yet recorded when the writes stopped. */
  inFlight: string[];
  release(): Promise<void>;
}

/**
 * Waits for a round the worker has reserved (its messages `sending`) and not yet recorded, once at least `afterSent`
 * messages went out, and holds it so that what it hands to the carrier cannot be recorded: PostgreSQL, by locking
 * the reserved messages' rows (recording updates them first); SQLite, by taking the database's write lock, at a
 * moment when no receipt is outstanding (none could be recorded while it is held). One connection polls in a tight
 * loop, and one statement both checks and locks: a busy machine leaves a round reserved for only a moment.
 */
async function holdReservedRound(url: string, accountId: string, afterSent: number, timeoutMs: number): Promise<Hold> {
  const reservedSql = `SELECT "id" FROM "Message" WHERE "accountId" = ? AND "status" = 'sending'
    AND (SELECT count(*) FROM "Message" WHERE "accountId" = ? AND "partsSubmitted" > 0) >= ${afterSent}`;
  const deadline = Date.now() + timeoutMs;
  if (/^file:/i.test(url)) {
    const sqlite = new Database(sqliteFilePath(url), { timeout: 10_000 });
    try {
      const reservedQuery = sqlite.prepare(reservedSql);
      const waitingQuery = sqlite.prepare(WAITING_SQL);
      while (Date.now() < deadline) {
        sqlite.prepare("BEGIN IMMEDIATE").run();
        const reserved = reservedQuery.all(accountId, accountId) as { id: string }[];
        const waiting = waitingQuery.get(accountId) as { n: number };
        if (reserved.length > 0 && Number(waiting.n) === 0) {
          const release = async () => {
            sqlite.prepare("ROLLBACK").run();
            sqlite.close();
          };
          return { inFlight: reserved.map((r) => r.id), release };
        }
        sqlite.prepare("ROLLBACK").run();
        await sleep(5);
      }
    } catch (error) {
      sqlite.close();
      throw error;
    }
    sqlite.close();
  } else {
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      const sql = `${reservedSql.replace("?", "$1").replace("?", "$1")} FOR UPDATE OF "Message"`;
      while (Date.now() < deadline) {
        await client.query("BEGIN");
        const reserved = await client.query<{ id: string }>(sql, [accountId]);
        if (reserved.rows.length > 0) {
          const release = async () => {
            await client.query("ROLLBACK");
            await client.end();
          };
          return { inFlight: reserved.rows.map((r) => r.id), release };
        }
        await client.query("ROLLBACK");
        await sleep(3);
      }
    } catch (error) {
      await client.end().catch(() => undefined);
      throw error;
    }
    await client.end();
  }
  throw new Error(`timed out after ${timeoutMs} ms waiting for a round of parts reserved and not yet recorded`);
}

const WAITING_SQL = `SELECT count(*) AS "n" FROM "MessagePart" p JOIN "Message" m ON m."id" = p."messageId"
  WHERE m."accountId" = ? AND p."status" = 'wait_dlr'`;

const receiptsOutstanding = async (accountId: string) =>
  Number((await inspect.query<{ n: number | string }>(WAITING_SQL, [accountId]))[0]!.n);

// ---- the scenarios -----------------------------------------------------------------------------------------

describe(`several delivery workers on one ${testProvider()} database`, () => {
  it(
    "never submit the same part twice, and pace each number exactly across processes",
    { timeout: 90_000 },
    async () => {
      const [w1, w2] = pair;
      const account = await createTestAccount(server, { numbers: 6, rateLimitPerSecond: 100 });
      // Which worker held which number, sampled while they work (leases go per number).
      const holders = new Map<string, Set<string>>();
      let sampling = true;
      const sampler = (async () => {
        while (sampling) {
          for (const row of await numberRows(account.accountId))
            if (row.leaseOwner) holders.set(row.number, (holders.get(row.number) ?? new Set()).add(row.leaseOwner));
          await sleep(100);
        }
      })();
      try {
        const started = Date.now();
        // Five messages from each of six numbers; one and two segments alternate (7 or 8 segments a number).
        const sent = await sendBacklog(account, 5, (i, n) => (i + n) % 2 === 1);
        expect(sent.filter((m) => m.numSegments === 2).length).toBeGreaterThan(10);
        await waitForAllSettled(account, sent.length, 45_000, [w1, w2]);
        const elapsed = Date.now() - started;
        sampling = false;
        await sampler;

        const tally = await checkDelivered(account, sent);
        expectPaced(tally);
        expectNoWorkerErrors(w1, w2);

        const byWorker = [w1, w2].map((w) => [...holders.values()].filter((owners) => owners.has(w.id)).length);
        // Not asserted: the account's own limit (100/s, a 10 ms slot) spaces the slots, not the moments parts leave.
        const all = [...tally.sentTimes.values()].flat().sort((a, b) => a - b);
        const accountGap = Math.min(...all.slice(1).map((t, i) => t - all[i]!));
        console.log(
          `[workers] ${sent.length} messages (${sent.reduce((s, m) => s + m.numSegments, 0)} segments) from 6 numbers ` +
            `delivered in ${elapsed} ms; numbers held by worker 1: ${byWorker[0]}, by worker 2: ${byWorker[1]}` +
            `, by both at some time: ${[...holders.values()].filter((o) => o.size > 1).length}; smallest gap ` +
            `between two parts of the account: ${accountGap} ms`,
        );
        // Every number was held by one of the two workers, and only by them.
        expect([...holders.keys()].sort()).toEqual([...account.numbers].sort());
        for (const owners of holders.values()) for (const owner of owners) expect([w1.id, w2.id]).toContain(owner);
      } finally {
        sampling = false;
        await sampler.catch(() => undefined);
        await Promise.all([w1.stop(), w2.stop()]);
      }
    },
  );

  it(
    "lose nothing when one is killed with SIGKILL mid-flight: another takes over after the lease",
    { timeout: 150_000 },
    async () => {
      // A long poll: the worker reserves a round up to half a second before its slots, a wide moment to hold it in.
      const [victim, account] = await Promise.all([
        startWorker(server.database.url, { ...WORKER_ENV, WORKER_POLL_MS: "500" }),
        createTestAccount(server, { numbers: 3, rateLimitPerSecond: 100 }),
      ]);
      let successorStarting: Promise<WorkerProcess> | null = null;
      try {
        // Ten a number: about ten seconds of rounds to catch one in, on a machine busy with other suites.
        const sent = await sendBacklog(account, 10, () => false);
        // The second worker starts while the first holds every number: it cannot take any before their leases run
        // out (they are renewed every second), so it waits, ready, for the first to die.
        await waitUntil(
          "the first worker to hold every number",
          async () => (await numberRows(account.accountId)).every((n) => n.leaseOwner === victim.id),
          10_000,
          20,
        );
        successorStarting = startWorker(server.database.url, WORKER_ENV);
        successorStarting.catch(() => undefined); // awaited below; a failure before that must not go unhandled

        // Once a few went out: a round reserved and held unrecorded (see holdReservedRound) while it hands its parts
        // to the carrier, and the worker killed in the middle of it, when no receipt of its earlier parts is pending
        // (the simulator carrier keeps those in the worker's memory: they would die with it, as no real carrier's
        // would).
        const hold = await holdReservedRound(server.database.url, account.accountId, 3, 40_000);
        let killedAt: number;
        try {
          await waitUntil(
            "the receipts of earlier parts",
            async () => (await receiptsOutstanding(account.accountId)) === 0,
            5_000,
            20,
          );
          await sleep(700); // past the reserved slots (at most one poll ahead): the held round's parts are out
          victim.signalGroup("SIGKILL");
          killedAt = Date.now();
          expect((await victim.exited).signal).toBe("SIGKILL");
        } finally {
          await hold.release();
        }
        const atKill = await messageRows(account.accountId);
        expect(atKill.filter((m) => m.status === "sending").map((m) => m.id)).toEqual(
          expect.arrayContaining(hold.inFlight),
        );
        const leases = await numberRows(account.accountId);
        expect(leases.map((n) => n.leaseOwner)).toEqual(leases.map(() => victim.id));

        const successor = await successorStarting;
        // Not before the lease ran out: the dead worker's numbers wait for their leases to expire.
        const takenAt = await waitUntil(
          "the second worker to take the numbers",
          async () => (await numberRows(account.accountId)).every((n) => n.leaseOwner === successor.id) && Date.now(),
          30_000,
          20,
        );
        expect(takenAt).toBeGreaterThanOrEqual(Math.min(...leases.map((n) => ms(n.leaseUntil)!)));
        await waitForAllSettled(account, sent.length, 60_000 - (Date.now() - killedAt), [victim, successor]);
        const recoveredIn = Date.now() - killedAt;
        const rows = await messageRows(account.accountId);
        expect(rows.filter((m) => m.status !== "delivered")).toEqual([]);

        // Only what was in flight at the kill may have been reserved (and handed to the carrier) twice, and it is
        // recorded once: the held round's parts, and those of a round for another number reserved after the hold and
        // not yet recorded (a round's parts leave at their slots, up to a poll ahead, and it is recorded after).
        const inFlightAtKill = new Set(atKill.filter((m) => m.status === "sending").map((m) => m.id));
        const tally = await checkDelivered(account, sent, inFlightAtKill);
        const again = tally.reservedAgain.map((r) => r.messageId);
        expect(again).toEqual(expect.arrayContaining(hold.inFlight));
        expect(again.filter((id) => !inFlightAtKill.has(id))).toEqual([]);
        expectPaced(tally);
        expectNoWorkerErrors(successor);
        console.log(
          `[workers] SIGKILL after ${sentCount(atKill)} of ${sent.length} messages were ` +
            `recorded sent, with ${hold.inFlight.length} part(s) in flight; all ${sent.length} delivered ` +
            `${recoveredIn} ms after the kill (numbers taken over after ${takenAt - killedAt} ms, lease ` +
            `${WORKER_ENV.WORKER_LEASE_SECONDS} s); parts sent twice ` +
            `(reserved by both workers, message_sent recorded once): ${tally.reservedAgain.length}`,
        );
      } finally {
        // Whatever failed: no worker of this scenario may go on taking the next scenario's numbers.
        victim.signalGroup("SIGKILL");
        await (await successorStarting?.catch(() => null))?.stop();
      }
    },
  );

  it(
    "stop cleanly on SIGTERM: exit 0, leases released, and another worker takes the numbers at once",
    { timeout: 90_000 },
    async () => {
      // A long lease: a number that was not given back would stay with the stopped worker for 30 s.
      const env = { ...WORKER_ENV, WORKER_LEASE_SECONDS: "30" };
      const [w1, w2, account] = await Promise.all([
        startWorker(server.database.url, env),
        startWorker(server.database.url, env),
        createTestAccount(server, { numbers: 3, rateLimitPerSecond: 100 }),
      ]);
      const workers = [w1, w2];
      try {
        const sent = await sendBacklog(account, 4, () => false);
        await waitUntil(
          "every number held and past its first part",
          async () => {
            const [numbers, lastSent] = await Promise.all([
              numberRows(account.accountId),
              lastSentByNumber(account.accountId),
            ]);
            return numbers.every((n) => n.leaseOwner !== null && lastSent.has(n.number));
          },
          20_000,
          20,
        );
        // The rest of the queue is put off for a few seconds (as a retry after a temporary error would), so that
        // the workers, still holding their numbers, fall idle with nothing in flight and no receipt outstanding:
        // a stopping worker finishes its round in flight, and the simulator carrier drops the receipts still
        // pending in a worker that stops (a real carrier keeps them for the next bind).
        const heldBackUntil = Date.now() + 6_000;
        await db().message.updateMany({
          where: { accountId: account.accountId, status: "queued" },
          data: { nextAttemptAt: new Date(heldBackUntil) },
        });
        const before = await waitForMoment(
          account,
          "the workers to fall idle",
          ({ messages, numbers }) =>
            !messages.some((m) => m.status === "sending") && numbers.every((n) => n.leaseOwner !== null)
              ? numbers
              : null,
          5_000,
        );
        expect(before.map((n) => [w1.id, w2.id].includes(n.leaseOwner!))).toEqual(before.map(() => true));
        const held = (w: WorkerProcess) => before.filter((n) => n.leaseOwner === w.id);
        const victim = held(w1).length >= held(w2).length ? w1 : w2;
        const heir = victim === w1 ? w2 : w1;
        const victimNumbers = held(victim).map((n) => n.number);
        expect(victimNumbers.length).toBeGreaterThan(0);
        const leaseWouldHoldUntil = Math.min(...held(victim).map((n) => ms(n.leaseUntil)!));

        const signalledAt = Date.now();
        victim.signalWorker("SIGTERM");
        const exit = await Promise.race([
          victim.exited,
          sleep(10_000).then(() => ({ code: "still running after 10 s", signal: null })),
        ]);
        const exitedIn = Date.now() - signalledAt;
        expect(exit, `exit of the worker after SIGTERM:\n${victim.output()}`).toEqual({ code: 0, signal: null });

        // Given back on the way out: owned by nobody, or already by the other worker.
        const after = await numberRows(account.accountId);
        for (const number of victimNumbers)
          expect([null, heir.id]).toContain(after.find((n) => n.number === number)!.leaseOwner);

        const takenAt = await waitUntil(
          "the other worker to take the stopped worker's numbers",
          async () => {
            const rows = await numberRows(account.accountId);
            const taken = victimNumbers.every(
              (number) => rows.find((n) => n.number === number)!.leaseOwner === heir.id,
            );
            return taken && Date.now();
          },
          10_000,
          20,
        );
        // At once, not when the lease would have run out.
        expect(takenAt).toBeLessThan(leaseWouldHoldUntil);
        expect(takenAt - signalledAt - exitedIn).toBeLessThan(3_000);

        await waitForAllSettled(account, sent.length, 30_000, workers);
        const tally = await checkDelivered(account, sent);
        expectPaced(tally);
        expectNoWorkerErrors(w1, w2);
        console.log(
          `[workers] SIGTERM: exited 0 in ${exitedIn} ms, ${victimNumbers.length} number(s) taken over ` +
            `${takenAt - signalledAt} ms after the signal (the lease would have held them ` +
            `${leaseWouldHoldUntil - signalledAt} ms); ${tally.sentTimes.size} numbers, ${sent.length} messages ` +
            `delivered once each`,
        );
      } finally {
        await Promise.all(workers.map((w) => w.stop()));
      }
    },
  );
});
