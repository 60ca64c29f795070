// Search across conversations, as staff type in the list's search box (it asks both the list, GET
// /api/admin/accounts/{id}/conversations?q=, which matches numbers, message text and contact names, and the results
// above it, GET …/conversations/search?q=), and a long thread's pages next to a short one's, on an account of a
// million messages: p50/p95 of each, against the real server (worker off), signed in as a portal user.
//   npm run bench:search -- [--db sqlite|postgresql] [--messages 1000000] [--samples 30] [--fresh] [--seed-only] [--only search:]
// The account holds the listing bench's traffic (50,000 phones, 60 days) in conversations, a thread of 10,000
// messages and one of 10, a word written once 35 days ago, and 5,000 named contacts. The seeded database is kept
// (bench/data/search-<n>.db, or database parley_bench_search_<n>) and reused unless --fresh.
import { existsSync, mkdirSync, rmSync, writeFileSync } from "node:fs";
import { loadavg } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import pg from "pg";
import { startServer, type RunningServer } from "../tests/helpers/server";
import { bindTo, createTestAccount, releaseFactories } from "../tests/helpers/factories";
import type { TestDatabase } from "../tests/helpers/test-database";
import { portalCookie } from "../tests/helpers/portal-session";
import { bodyIndexCaughtUp, SEED_BODIES, seededMessage } from "../tests/helpers/seed-messages";
import { db } from "../lib/db/client";
import { insertRows } from "../lib/db/insert-rows";
import { MESSAGE_COLUMNS, messageValues } from "../lib/db/send-rows";
import { uuidv7 } from "../lib/db/ids";
import { createUser } from "../lib/accounts/manage-accounts";
import type { Prisma } from "../lib/db/generated/sqlite/client";
import { machineCaption, percentile } from "./figures";

const { values } = parseArgs({
  options: {
    db: { type: "string", default: "sqlite" },
    messages: { type: "string", default: "1000000" },
    samples: { type: "string", default: "30" },
    fresh: { type: "boolean", default: false },
    "seed-only": { type: "boolean", default: false },
    only: { type: "string" },
  },
});
process.env.PARLEY_TEST_DB = values.db;
const total = Number(values.messages);
const samples = Number(values.samples);
const ADMIN_URL = process.env.PARLEY_TEST_PG_URL ?? "postgresql://postgres@127.0.0.1:5432/postgres";
const EMAIL = "bench@search.parley";
const PASSWORD = "bench search password";

/** The long thread, the short one, and the word written once, 35 days ago. */
const LONG_THREAD = 10_000;
const SHORT_THREAD = 10;
const LONG_PHONE = "14153000000";
const SHORT_PHONE = "14153000001";
const RARE_WORD = "kumquat";
/** Every tenth phone of the traffic is a named contact; the long thread's phone is the only Okonkwo-Bell. */
const FIRST_NAMES = ["Ana", "Ben", "Chloé", "David", "Emma", "Farid", "Grace", "Hugo", "Inès", "Jonas"];
const LAST_NAMES = ["Nguyen", "Garcia", "Smith", "Dubois", "Kowalski", "Rossi", "Schmidt", "Tanaka", "Silva", "Moreau"];
const RARE_NAME = "Marguerite Okonkwo-Bell";
/** The traffic's phones: message n is with phone n % PHONES, from account number n % 20 (seed-messages.ts). */
const PHONES = 50_000;

async function benchDatabase(): Promise<{ database: TestDatabase; existed: boolean }> {
  if (values.db === "sqlite") {
    mkdirSync(join("bench", "data"), { recursive: true });
    const file = join(process.cwd(), "bench", "data", `search-${total}.db`);
    if (values.fresh) for (const suffix of ["", "-wal", "-shm"]) rmSync(file + suffix, { force: true });
    return { database: { provider: "sqlite", url: `file:${file}`, drop: async () => {} }, existed: existsSync(file) };
  }
  const name = `parley_bench_search_${total}`;
  const admin = new pg.Client({ connectionString: ADMIN_URL });
  await admin.connect();
  if (values.fresh) await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
  const found = await admin.query("SELECT 1 FROM pg_database WHERE datname = $1", [name]);
  if (found.rowCount === 0) await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  const url = new URL(ADMIN_URL);
  url.pathname = `/${name}`;
  return { database: { provider: "postgresql", url: url.toString(), drop: async () => {} }, existed: !!found.rowCount };
}

/**
 * `total` messages in all, each in its conversation as inbound messages and replies are: the listing bench's traffic
 * (seed-messages.ts; 50,000 phones × 20 account numbers, 60 days up to now), and, interleaved in time, a thread of
 * 10,000 messages over the same 60 days, one of 10 over the last 10 days, and one message 35 days ago holding a word
 * no other holds. Conversations are written first (messages refer to them), then the messages in transactions of
 * 10,000 through the service's multi-row insert (its triggers and indexes apply), then 5,000 named contacts.
 */
async function seed(accountId: string, numbers: string[]): Promise<void> {
  const started = performance.now();
  const span = 60 * 86_400_000;
  const first = Date.now() - span;
  const traffic = total - LONG_THREAD - SHORT_THREAD - 1;
  const phones = Math.min(PHONES, traffic);
  const at = (n: number) => first + Math.floor((n / traffic) * span);
  // Conversation k holds messages k, k + 50,000, …: its first and last are known without reading them back.
  const conversations: Prisma.ConversationCreateManyInput[] = [];
  for (let k = 0; k < phones; k++) {
    const last = k + Math.floor((traffic - 1 - k) / PHONES) * PHONES;
    conversations.push({
      id: `bench-conversation-${k}`,
      accountId,
      accountNumber: numbers[k % numbers.length]!,
      remoteNumber: `1415${String(2000000 + k).padStart(7, "0")}`,
      createdAt: new Date(at(k)),
      lastMessageAt: new Date(at(last)),
    });
  }
  const extra = (
    conversationId: string,
    own: string,
    phone: string,
    i: number,
    time: number,
    body: string,
  ): Prisma.MessageCreateManyInput => {
    const inbound = i % 3 === 0;
    return {
      id: "",
      accountId,
      direction: inbound ? "inbound" : "outbound",
      messageType: "sms",
      fromNumber: inbound ? phone : own,
      toNumber: inbound ? own : phone,
      body,
      numSegments: 1,
      encoding: "GSM7",
      status: inbound ? "" : "delivered",
      conversational: !inbound,
      conversationId,
      createdAt: new Date(time),
      updatedAt: new Date(time),
    };
  };
  const extras: Prisma.MessageCreateManyInput[] = [];
  for (let i = 0; i < LONG_THREAD; i++)
    extras.push(
      extra(
        "bench-long",
        numbers[0]!,
        LONG_PHONE,
        i,
        first + Math.floor((i / LONG_THREAD) * span),
        SEED_BODIES[i % 8]!(i),
      ),
    );
  const now = first + span;
  for (let i = 0; i < SHORT_THREAD; i++)
    extras.push(
      extra("bench-short", numbers[1]!, SHORT_PHONE, i, now - (SHORT_THREAD - i) * 86_400_000, SEED_BODIES[i % 8]!(i)),
    );
  const rare = conversations[777 % phones]!;
  extras.push({
    ...extra(rare.id!, rare.accountNumber, rare.remoteNumber, 0, now - 35 * 86_400_000, ""),
    body: `The ${RARE_WORD} crate is at the back door, can someone sign for it?`,
  });
  extras.sort((a, b) => +a.createdAt - +b.createdAt);
  const threadOf = (id: string, own: string, phone: string) => {
    const times = extras.filter((m) => m.conversationId === id).map((m) => new Date(m.createdAt));
    return {
      id,
      accountId,
      accountNumber: own,
      remoteNumber: phone,
      createdAt: times[0]!,
      lastMessageAt: times.at(-1)!,
    };
  };
  conversations.push(
    threadOf("bench-long", numbers[0]!, LONG_PHONE),
    threadOf("bench-short", numbers[1]!, SHORT_PHONE),
  );
  for (let i = 0; i < conversations.length; i += 5_000)
    await db().conversation.createMany({ data: conversations.slice(i, i + 5_000) });

  const client = db();
  let next = 0;
  let rows: unknown[][] = [];
  let stored = 0;
  const flush = async () => {
    const batch = rows;
    rows = [];
    await client.$transaction(async (tx) => insertRows(tx, "Message", MESSAGE_COLUMNS, batch), { timeout: 120_000 });
    const before = stored;
    stored += batch.length;
    if (Math.floor(stored / 100_000) > Math.floor(before / 100_000)) process.stdout.write(`  ${stored} stored\n`);
  };
  const push = async (m: Prisma.MessageCreateManyInput) => {
    rows.push(messageValues({ ...m, id: uuidv7(+m.createdAt) }));
    if (rows.length === 10_000) await flush();
  };
  for (let n = 0; n < traffic; n++) {
    const message = seededMessage(n, traffic, accountId, numbers, first, span);
    while (next < extras.length && +extras[next]!.createdAt <= +message.createdAt) await push(extras[next++]!);
    await push({ ...message, conversationId: `bench-conversation-${n % PHONES}` });
  }
  while (next < extras.length) await push(extras[next++]!);
  if (rows.length) await flush();

  const contacts: Prisma.ContactCreateManyInput[] = [];
  for (let k = 0; k < phones; k += 10) {
    const j = k / 10;
    contacts.push({
      id: `bench-contact-${j}`,
      accountId,
      number: conversations[k]!.remoteNumber,
      name: `${FIRST_NAMES[j % 10]} ${LAST_NAMES[Math.floor(j / 10) % 10]}`,
    });
  }
  contacts.push({ id: "bench-contact-long", accountId, number: LONG_PHONE, name: RARE_NAME });
  for (let i = 0; i < contacts.length; i += 5_000)
    await db().contact.createMany({ data: contacts.slice(i, i + 5_000) });
  console.log(
    `seeded ${stored} messages in ${conversations.length} conversations, ${contacts.length} contacts, in ${((performance.now() - started) / 1000).toFixed(1)} s`,
  );
}

async function timed(server: RunningServer, path: string, cookie: string) {
  const started = performance.now();
  const response = await fetch(server.baseUrl + path, { headers: { cookie }, signal: AbortSignal.timeout(120_000) });
  const json = (await response.json()) as { statusCode: number; data?: Record<string, unknown> };
  return { ms: performance.now() - started, json };
}

/** What a request found: search hits (messages + numbers), the list's total, or a thread page's messages. */
function found(data: Record<string, unknown>): string {
  const length = (key: string) => (Array.isArray(data[key]) ? (data[key] as unknown[]).length : 0);
  if ("total" in data) return `${String(data.total)} conversations`;
  if ("numbers" in data) return `${length("messages")} messages, ${length("numbers")} numbers`;
  return `${length("messages")} messages${data.hasOlder ? ", more older" : ""}`;
}

async function main() {
  const { database, existed } = await benchDatabase();
  const server = await startServer({ database, env: { LOG_LEVEL: "warn" } });
  const machine = machineCaption(values.db);
  try {
    await bindTo(server);
    const seeded = existed ? await db().user.findUnique({ where: { email: EMAIL } }) : null;
    let accountId: string;
    if (seeded) accountId = seeded.accountId;
    else {
      const fresh = await createTestAccount(server, { numbers: 20 });
      accountId = fresh.accountId;
      await seed(accountId, fresh.numbers);
      await createUser({ accountId, email: EMAIL, password: PASSWORD, role: "agent", name: "Bench Agent" });
    }
    if (values["seed-only"]) return;
    if (values.db === "sqlite") {
      // The body index is filled behind the writes; a deployment's is caught up, so the bench waits for it.
      const started = performance.now();
      await bodyIndexCaughtUp(3_600_000);
      console.log(`body index caught up after ${((performance.now() - started) / 1000).toFixed(1)} s`);
    } else {
      // What autovacuum does after a bulk load (this machine's test cluster runs without it).
      await db().$executeRawUnsafe("VACUUM ANALYZE");
    }
    const cookie = await portalCookie(server, EMAIL, PASSWORD);
    const base = `/api/admin/accounts/${accountId}/conversations`;
    const messages = await db().message.count({ where: { accountId } });
    const long = await db().conversation.findFirstOrThrow({ where: { accountId, remoteNumber: LONG_PHONE } });
    const short = await db().conversation.findFirstOrThrow({ where: { accountId, remoteNumber: SHORT_PHONE } });
    const newestFirst = [{ createdAt: "desc" as const }, { id: "desc" as const }];
    const nthNewest = async (conversationId: string, skip: number) =>
      (await db().message.findFirstOrThrow({ where: { conversationId }, orderBy: newestFirst, skip })).id;
    // Scrolled up to the middle of the long thread; a search result 1,500 messages back (within the 2,000 a thread
    // opened at a message loads); the short thread's oldest.
    const middle = await nthNewest(long.id, LONG_THREAD / 2);
    const deep = await nthNewest(long.id, 1_500);
    const shortOldest = await nthNewest(short.id, SHORT_THREAD - 1);
    const q = (text: string) => encodeURIComponent(text);
    const requests: [string, string][] = [
      ["search: rare text (user_4324.)", `${base}/search?q=${q("user_4324.")}`],
      ["search: common word (shipped)", `${base}/search?q=shipped`],
      ["search: absent word (zebra)", `${base}/search?q=zebra`],
      ["search: accented capital (ÉMILE)", `${base}/search?q=${q("ÉMILE")}`],
      [`search: a word written once, 35 days ago (${RARE_WORD})`, `${base}/search?q=${RARE_WORD}`],
      ["search: number as displayed ((415) 200-1234)", `${base}/search?q=${q("(415) 200-1234")}`],
      ["search: part of a number (200-0123)", `${base}/search?q=${q("200-0123")}`],
      ["list: number (+1 415 200 1234)", `${base}?q=${q("+1 415 200 1234")}`],
      ["list: contact name, one (Okonkwo)", `${base}?q=Okonkwo`],
      ["list: contact name, common (Nguyen)", `${base}?q=Nguyen`],
      [`list: a word written once, 35 days ago (${RARE_WORD})`, `${base}?q=${RARE_WORD}`],
      ["list: common word (shipped)", `${base}?q=shipped`],
      ["list: absent word (zebra)", `${base}?q=zebra`],
      ["list: no search (first page)", base],
      [`thread of ${LONG_THREAD}: opens (newest 100)`, `${base}/${long.id}`],
      [`thread of ${LONG_THREAD}: older page, 5,000 back`, `${base}/${long.id}/messages?before=${middle}`],
      [`thread of ${LONG_THREAD}: opened at a message 1,500 back`, `${base}/${long.id}?at=${deep}`],
      [`thread of ${SHORT_THREAD}: opens`, `${base}/${short.id}`],
      [
        `thread of ${SHORT_THREAD}: older page (before its newest)`,
        `${base}/${short.id}/messages?before=${await nthNewest(short.id, 0)}`,
      ],
      [`thread of ${SHORT_THREAD}: opened at its oldest message`, `${base}/${short.id}?at=${shortOldest}`],
    ];
    console.log(
      `\n${messages} messages · ${machine} · load ${loadavg()[0]!.toFixed(1)} · ${samples} samples each after 2 warm-ups\n`,
    );
    console.log("| request | found | first call ms | p50 ms | p95 ms | max ms |");
    console.log("| --- | --- | ---: | ---: | ---: | ---: |");
    const rows = [];
    for (const [name, path] of requests) {
      if (values.only && !name.startsWith(values.only)) continue;
      const cold = await timed(server, path, cookie);
      await timed(server, path, cookie);
      const times: number[] = [];
      let what = "";
      // A request slower than a second is measured five times, not 30 (its p95 is then the slowest of five).
      for (let i = 0; i < (cold.ms > 1000 ? 5 : samples); i++) {
        const { ms, json } = await timed(server, path, cookie);
        if (json.statusCode !== 200) throw new Error(`${name}: ${JSON.stringify(json).slice(0, 300)}`);
        what = found(json.data ?? {});
        times.push(ms);
      }
      times.sort((a, b) => a - b);
      const round = (ms: number) => Math.round(ms * 10) / 10;
      const row = {
        name,
        found: what,
        first: round(cold.ms),
        p50: round(percentile(times, 50)),
        p95: round(percentile(times, 95)),
        max: round(times.at(-1)!),
      };
      rows.push(row);
      console.log(`| ${row.name} | ${row.found} | ${row.first} | ${row.p50} | ${row.p95} | ${row.max} |`);
    }
    mkdirSync("bench/results", { recursive: true });
    writeFileSync(
      `bench/results/search-${values.db}-${total}.json`,
      JSON.stringify({ machine, messages, samples, load: loadavg(), rows }, null, 2),
    );
  } finally {
    await releaseFactories();
    await server.stop();
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
