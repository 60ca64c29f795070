import { dbProvider } from "../db/client";
import { boundValue, placeholder, type ColumnKind } from "../db/insert-rows";
import { readListing, type ListingRow as RawRow } from "../db/listing-reader";
import type { ListingRow } from "./message-serializers";
import type { ListQuery } from "./list-schema";

// The SQL of the message listing (GET /v3/messages and the portal's Messages page), read through
// lib/db/listing-reader: off the event loop, under the statement timeout. Every filter and sort has an index that
// starts with the account; the body filter uses a trigram index (SQLite FTS5, PostgreSQL pg_trgm). What to count
// and when, the cache of totals and the refusals are list-messages.ts's business.

const SORT_COLUMNS: Record<ListQuery["sortBy"], [column: string, kind: ColumnKind]> = {
  timestamp: ["createdAt", "date"],
  from: ["fromNumber", "text"],
  to: ["toNumber", "text"],
  status: ["status", "text"],
  direction: ["direction", "text"],
  messageType: ["messageType", "text"],
  numSegments: ["numSegments", "int"],
};

/** Up to this many matches, `total` is counted for every page; beyond it, at most once per cache period. */
export const TOTAL_EXACT_UP_TO = 10_000;
/** A body needle with at least this many characters can use the trigram index. */
const TRIGRAM = 3;
/**
 * SQLite: up to this many bodies holding the needle (in any account), the listing reads just those through the
 * trigram index; more, and it scans the account's rows in the listing's order, where a page is found soon.
 */
const INDEXED_CANDIDATES = 2000;
/** SQLite: the most messages the body indexer may be behind for a scan to look for rare matches through the index. */
const INDEXER_BEHIND_AT_MOST = 50_000;

const SELECT_COLUMNS = ["id", "accountId", "fromNumber", "toNumber", "messageType", "direction", "body", "media"]
  .concat(["numSegments", "status", "referenceId"])
  .map((c) => `m."${c}"`)
  .join(", ");

/**
 * SQLite: the FTS5 query for the bodies that hold the trigrams covering `needle`: its three-character runs end to
 * end, and the last three characters (`user_4324.`: `use`, `r_4`, `324`, `24.`), each quoted. The index keeps which
 * messages hold a trigram, not where (detail=none: no phrase query, but less than half the size, cheaper to fill), so
 * a body holding them apart is a candidate too, and the exact test on the row decides, as for every candidate. The
 * covering runs rather than every trigram: as few candidates on real text, and half the lists to intersect or less
 * (2.2 against 4.9 ms for `user_4324.`, 11 against 31 ms for `appointment is at 9:30`, at 1M messages).
 */
function trigramQuery(needle: string): string {
  const chars = Array.from(needle);
  const trigrams = new Set<string>();
  for (let i = 0; i + TRIGRAM <= chars.length; i += TRIGRAM) trigrams.add(chars.slice(i, i + TRIGRAM).join(""));
  trigrams.add(chars.slice(-TRIGRAM).join(""));
  return [...trigrams].map((t) => `"${t.replace(/"/g, '""')}"`).join(" ");
}

/** Lower case, character by character (as the SQLite reader's parley_contains folds the bodies). */
export function foldCase(text: string): string {
  return Array.from(text, (char) => {
    const lower = char.toLowerCase();
    return Array.from(lower).length === 1 ? lower : char;
  }).join("");
}

/** A query under construction: conditions and their parameters in order. */
class Statement {
  readonly conditions: string[] = [];
  /** `params`: a statement's own, or those of the statement a subquery is part of (PostgreSQL's are numbered). */
  constructor(
    readonly postgres: boolean,
    readonly params: unknown[] = [],
  ) {}

  value(value: unknown, kind: ColumnKind = "text"): string {
    this.params.push(boundValue(kind, value));
    return placeholder(this.params.length, kind);
  }

  where(condition: string): void {
    this.conditions.push(condition);
  }

  clause(): string {
    return this.conditions.length ? `WHERE ${this.conditions.join(" AND ")}` : "";
  }
}

export interface Plan {
  /** FROM … (with the alias m for Message), and how the body filter narrows it. */
  from: (s: Statement) => string;
  body: (s: Statement) => void;
  /** The body filter reads the account's rows in order: counting every match is as dear as a full count. */
  scan: boolean;
  /**
   * A scan whose needle the trigram index knows: ways to matches that are rare among the messages of the other
   * filters (a common word among failed messages that never hold it), where the scan would read every one of their
   * bodies (100,000 failed messages: 150–210 ms).
   */
  rare?: {
    /**
     * SQLite: the same filter, with the trigram index's candidates tested on each entry of the other filters' index
     * before its row is read: the candidates once, then that index until the page is full (23–32 ms for that case at
     * 1M). PostgreSQL: the needle and the other filters planned apart from the page's order, which lets it AND the
     * trigram index's bitmap with the other filters' (26 ms p50 for that case at 1M).
     */
    narrowed: Plan;
    /**
     * The cheaper way to every match among `rows` messages of the other filters: `narrowed`, or on SQLite with few
     * candidates beside `rows`, the candidates' rows read one by one (`55%` over the whole account: 8,333 of them,
     * 6–10 ms, against 83 ms through the index). PostgreSQL's planner makes that choice itself.
     */
    toAll: (rows: number) => Promise<Plan>;
  };
}

const MESSAGE_FROM = () => `"Message" m`;

/** How the body filter runs: through the trigram index when the needle is long and rare enough, else by scanning. */
export async function bodyPlan(query: ListQuery): Promise<Plan> {
  if (!query.body) return { from: MESSAGE_FROM, body: () => {}, scan: false };
  if (dbProvider() === "postgresql") {
    // pg_trgm's index on lower(body) serves LIKE; the planner picks it or the ordered scan by the needle's rarity.
    // The needle as given is lowered by PostgreSQL as the bodies are, so that both sides agree under the database's
    // own case rules (a C.UTF-8 database lowers İ to i, which the folding below keeps; an ICU one ends a word in ς).
    const pattern = `%${query.body.replace(/[\\%_]/g, "\\$&")}%`;
    const body = (s: Statement) => s.where(`lower(m."body") LIKE lower(${s.value(pattern)})`);
    // A needle the planner expects in many of the account's messages: counting to the bound would read as many
    // rows as the page never needs, so the (cached) full count is taken instead, as on SQLite's scan.
    const probe = new Statement(true);
    probe.where(`m."accountId" = ${probe.value(query.accountId)}`);
    body(probe);
    const [{ "QUERY PLAN": plan }] = (await readListing(
      `EXPLAIN (FORMAT JSON) SELECT 1 FROM "Message" m ${probe.clause()}`,
      probe.params,
    )) as [{ "QUERY PLAN": [{ Plan: { "Plan Rows": number } }] }];
    if (plan[0].Plan["Plan Rows"] > 2 * TOTAL_EXACT_UP_TO) {
      // Rare among the other filters' messages after all: the needle and the other filters planned together, apart
      // from the page's order (OFFSET 0 again), so that PostgreSQL can AND the trigram index's bitmap with theirs
      // instead of reading every one of their rows in the page's order.
      const narrowed: Plan = {
        from: (s) => {
          const inner = new Statement(true, s.params);
          filter(inner, { ...query, body: undefined }, { from: MESSAGE_FROM, body, scan: true });
          return `(SELECT m.* FROM "Message" m ${inner.clause()} OFFSET 0) m`;
        },
        body: () => {},
        scan: true,
      };
      return { from: MESSAGE_FROM, body, scan: true, rare: { narrowed, toAll: async () => narrowed } };
    }
    // Expected rare: the matches are read through the trigram index, then sorted. OFFSET 0 keeps the planner from
    // folding the subquery into the page's ordered index scan, which its guess of the matches' number (often off
    // by tenfold for a LIKE pattern) would otherwise make it choose, reading the account's rows until a page fills.
    const from = (s: Statement) =>
      `(SELECT * FROM "Message" WHERE "accountId" = ${s.value(query.accountId)} AND lower("body") LIKE lower(${s.value(pattern)}) OFFSET 0) m`;
    return { from, body: () => {}, scan: false };
  }
  const needle = foldCase(query.body);
  // The exact test: SQLite's lower() folds ASCII letters only, which is exact for a needle of ASCII characters
  // (and native, so cheap); any other needle goes through the reader's own folding function, after its longest
  // ASCII run, tested natively first, has spared most rows the call into JavaScript.
  const ascii = Array.from(needle, (char) => (char.charCodeAt(0) < 128 ? char : "\n"))
    .join("")
    .split("\n")
    .reduce((a, b) => (b.length > a.length ? b : a), "");
  const exact =
    ascii === needle
      ? (s: Statement) => s.where(`instr(lower(m."body"), ${s.value(needle)}) > 0`)
      : (s: Statement) => {
          if (ascii) s.where(`instr(lower(m."body"), ${s.value(ascii)}) > 0`);
          s.where(`parley_contains(m."body", ${s.value(needle)})`);
        };
  if (Array.from(needle).length >= TRIGRAM) {
    const match = trigramQuery(needle);
    // The candidates: the index's matches, and every message the background indexer has not reached yet (read in
    // the same statement as its mark, so that none is missed). Joined to rows, each must come once (UNION); for IN
    // and for counting them, one listed twice does no harm, and UNION ALL spares the merge that UNION sorts them
    // through (a third of the statement's time for a common word).
    const candidates = (s: Statement, union: "UNION" | "UNION ALL" = "UNION") =>
      `(SELECT rowid AS r FROM "MessageBodySearch" WHERE "MessageBodySearch" MATCH ${s.value(match)}
        ${union} SELECT rowid FROM "Message" WHERE rowid > (SELECT "indexedUpTo" FROM "MessageBodySearchState" WHERE "id" = 1))`;
    const candidateSet = (s: Statement) => candidates(s, "UNION ALL");
    /** The number of candidates, counted only up to `limit` (one more than `limit` means "more"). */
    const candidatesUpTo = (s: Statement, limit: number) =>
      `(SELECT count(*) FROM (SELECT 1 FROM ${candidateSet(s)} LIMIT ${limit + 1}))`;
    const countCandidates = async (limit: number) => {
      const probe = new Statement(false);
      const [{ n }] = (await readListing(`SELECT ${candidatesUpTo(probe, limit)} AS n`, probe.params)) as [
        { n: number },
      ];
      return n;
    };
    const joined: Plan = {
      from: (s) => `${candidates(s)} b CROSS JOIN "Message" m ON m.rowid = b.r`,
      body: exact,
      scan: false,
    };
    // Few bodies hold it (in any account): read just those. Many do: the ordered scan finds a page soon, unless the
    // other filters' messages seldom hold it. `+` keeps the planner on the other filters' (or the order's) index.
    const probe = new Statement(false);
    const [{ n, behind }] = (await readListing(
      `SELECT ${candidatesUpTo(probe, INDEXED_CANDIDATES)} AS n,
        coalesce((SELECT max(rowid) FROM "Message"), 0)
          - (SELECT "indexedUpTo" FROM "MessageBodySearchState" WHERE "id" = 1) AS behind`,
      probe.params,
    )) as [{ n: number; behind: number | null }];
    if (n <= INDEXED_CANDIDATES) return joined;
    // An indexer far behind (a bulk import, a VACUUM's rebuild) makes every message above its mark a candidate: the
    // ways to rare matches would read them all before their statement's deadline is first checked.
    if ((behind ?? 0) > INDEXER_BEHIND_AT_MOST) return { from: MESSAGE_FROM, body: exact, scan: true };
    const narrowed: Plan = {
      from: MESSAGE_FROM,
      body: (s) => {
        s.where(`+m.rowid IN ${candidateSet(s)}`);
        exact(s);
      },
      scan: true,
    };
    // The cheaper way to all the matches among `rows` messages of the other filters: reading a candidate's row costs
    // about ten entries of the other filters' index (1.0 against 0.08–0.12 µs at 1M).
    const toAll = async (rows: number) => {
      const few = Math.ceil(rows / 10);
      return (await countCandidates(few)) <= few ? joined : narrowed;
    };
    return { from: MESSAGE_FROM, body: exact, scan: true, rare: { narrowed, toAll } };
  }
  return { from: MESSAGE_FROM, body: exact, scan: true };
}

/** The filters of the query (not its paging): what `total` counts. */
function filter(s: Statement, query: ListQuery, plan: Plan): string {
  const from = plan.from(s);
  s.where(`m."accountId" = ${s.value(query.accountId)}`);
  const equal: [keyof ListQuery, string][] = [
    ["messageId", "id"],
    ["referenceId", "referenceId"],
    ["from", "fromNumber"],
    ["to", "toNumber"],
    ["messageType", "messageType"],
    ["direction", "direction"],
    ["status", "status"],
  ];
  for (const [key, column] of equal) {
    if (query[key] !== undefined) s.where(`m."${column}" = ${s.value(query[key])}`);
  }
  if (query.timestampBegin) s.where(`m."createdAt" >= ${s.value(query.timestampBegin, "date")}`);
  if (query.timestampEnd) s.where(`m."createdAt" < ${s.value(query.timestampEnd, "date")}`);
  plan.body(s);
  // SQLite's statement timeout (see lib/db/sqlite-listing-thread.mjs), checked on one row examined in 64: the OR
  // stops at its native first test for the others, and a call into JavaScript per row would cost more than the row.
  if (!s.postgres) s.where(`(m.rowid % 64 <> 0 OR parley_deadline())`);
  return from;
}

export interface Anchor {
  value: unknown;
  createdAt: unknown;
  id: string;
}

/** The cursor message's sort values, or null when the messageId is not one of the account's. */
export async function readAnchor(query: ListQuery, name: "after" | "before"): Promise<Anchor | null> {
  const [column] = SORT_COLUMNS[query.sortBy];
  const s = new Statement(dbProvider() === "postgresql");
  // PostgreSQL: times as text, bound back as they are (pg would read a timestamp without zone as local time).
  const text = (c: string) => (s.postgres && c === "createdAt" ? `m."${c}"::text` : `m."${c}"`);
  const rows = await readListing(
    `SELECT ${text(column)} AS v, ${text("createdAt")} AS c, m."id" AS id FROM "Message" m
     WHERE m."accountId" = ${s.value(query.accountId)} AND m."id" = ${s.value(query[name])}`,
    s.params,
  );
  const row = rows[0];
  return row ? { value: row.v, createdAt: row.c, id: String(row.id) } : null;
}

/** Rows strictly beyond the anchor in the direction `op` (< or >), as an expanded row comparison indexes can use. */
function beyond(s: Statement, query: ListQuery, anchor: Anchor, op: "<" | ">"): void {
  const [column, kind] = SORT_COLUMNS[query.sortBy];
  // The anchor's values came from the database in stored form: bound again as they are. Placeholders are taken in
  // the order they appear in the SQL (SQLite's are positional).
  const raw = (value: unknown, k: ColumnKind) => {
    s.params.push(value);
    return placeholder(s.params.length, k);
  };
  const byTime = () =>
    `(m."createdAt" ${op} ${raw(anchor.createdAt, "date")} OR (m."createdAt" = ${raw(anchor.createdAt, "date")} AND m."id" ${op} ${raw(anchor.id, "text")}))`;
  if (column === "createdAt") {
    s.where(`m."createdAt" ${op}= ${raw(anchor.createdAt, "date")}`);
    s.where(byTime());
    return;
  }
  s.where(`m."${column}" ${op}= ${raw(anchor.value, kind)}`);
  const strictly = `m."${column}" ${op} ${raw(anchor.value, kind)}`;
  const tied = `m."${column}" = ${raw(anchor.value, kind)}`;
  s.where(`(${strictly} OR (${tied} AND ${byTime()}))`);
}

function orderBy(query: ListQuery, reverse: boolean): string {
  const [column] = SORT_COLUMNS[query.sortBy];
  const dir = (query.sortDir === "desc") !== reverse ? "DESC" : "ASC";
  // The id (UUIDv7, time-ordered) breaks ties so that pages never repeat or skip a message.
  const keys = column === "createdAt" ? ["createdAt", "id"] : [column, "createdAt", "id"];
  return keys.map((key) => `m."${key}" ${dir}`).join(", ");
}

/** The number of matches, counted only up to `limit` (one more than `limit` means "more"). */
export async function countUpTo(query: ListQuery, plan: Plan, limit: number): Promise<number> {
  const bounded = new Statement(dbProvider() === "postgresql");
  const from = filter(bounded, query, plan);
  const [{ n }] = (await readListing(
    `SELECT count(*) AS n FROM (SELECT 1 FROM ${from} ${bounded.clause()} LIMIT ${limit + 1}) t`,
    bounded.params,
  )) as [{ n: number | string }];
  return Number(n);
}

/**
 * The matches among the newest `sample` messages of the query's other filters (the body filter tested on each): what
 * an estimate of a scan's total is made from.
 */
export async function countNewestMatches(query: ListQuery, plan: Plan, sample: number): Promise<number> {
  const s = new Statement(dbProvider() === "postgresql");
  // The other filters choose the newest rows; the body filter then tests just those (parameters in SQL order).
  const from = filter(s, { ...query, body: undefined }, { ...plan, body: () => {} });
  const newest = `SELECT m."body" AS "body" FROM ${from} ${s.clause()}
    ORDER BY m."createdAt" DESC, m."id" DESC LIMIT ${sample}`;
  s.conditions.length = 0;
  plan.body(s);
  const [{ n }] = (await readListing(`SELECT count(*) AS n FROM (${newest}) m ${s.clause()}`, s.params)) as [
    { n: number | string },
  ];
  return Number(n);
}

/** Every match counted (may run into the statement timeout on a large account). */
export async function countAll(query: ListQuery, plan: Plan): Promise<number> {
  const full = new Statement(dbProvider() === "postgresql");
  const from = filter(full, query, plan);
  const [{ n }] = (await readListing(`SELECT count(*) AS n FROM ${from} ${full.clause()}`, full.params)) as [
    { n: number | string },
  ];
  return Number(n);
}

function toRow(raw: RawRow): ListingRow {
  const stamp = String(raw.createdAt);
  // SQLite stores "2026-11-22T19:00:00.000+00:00"; PostgreSQL's text of a timestamp(3) is "2026-11-22 19:00:00.12".
  const createdAt = new Date(/[zZ]|[+-]\d\d:\d\d$/.test(stamp) ? stamp : `${stamp.replace(" ", "T")}Z`);
  return {
    id: String(raw.id),
    accountId: String(raw.accountId),
    fromNumber: String(raw.fromNumber),
    toNumber: String(raw.toNumber),
    createdAt,
    messageType: String(raw.messageType),
    direction: String(raw.direction),
    body: String(raw.body),
    media: String(raw.media),
    numSegments: Number(raw.numSegments),
    status: String(raw.status),
    referenceId: raw.referenceId === null ? null : String(raw.referenceId),
  };
}

/** One page of rows in the query's order, after or before the cursor's anchor when there is one. */
export async function readPageRows(query: ListQuery, plan: Plan, anchor: Anchor | null): Promise<ListingRow[]> {
  const postgres = dbProvider() === "postgresql";
  const s = new Statement(postgres);
  const from = filter(s, query, plan);
  if (anchor) {
    const forward = query.sortDir === "desc" ? "<" : ">";
    beyond(s, query, anchor, query.after ? forward : forward === "<" ? ">" : "<");
  }
  const createdAt = postgres ? `m."createdAt"::text AS "createdAt"` : `m."createdAt" AS "createdAt"`;
  const rows = await readListing(
    `SELECT ${SELECT_COLUMNS}, ${createdAt} FROM ${from} ${s.clause()}
     ORDER BY ${orderBy(query, Boolean(query.before))} LIMIT ${query.count} OFFSET ${query.start}`,
    s.params,
  );
  return rows.map(toRow);
}
