import { z } from "zod";
import { assertAccount, type ApiPrincipal } from "../api/authenticate";
import { ApiError } from "../api/api-error";
import { env } from "../env";
import { StatementTimeout } from "../db/listing-reader";
import { listingResultSchema, toListingResult } from "./message-serializers";
import type { ListQuery } from "./list-schema";
import {
  matchesByHour,
  matchesTotal,
  newestHours,
  SEEK_FROM,
  seekPage,
  tallied,
  timeSlices,
  totalOf,
} from "./message-tally";
import type { HourCount } from "./message-tally-queries";
import {
  bodyPlan,
  countAll,
  countNewestMatches,
  countUpTo,
  readAnchor,
  readPageRows,
  TOTAL_EXACT_UP_TO,
  type Plan,
} from "./listing-queries";

// GET /v3/messages (and the portal's Messages page): what to count and when, the cursor, the refusals. The SQL is
// listing-queries.ts's; its costs stay flat as an account grows to millions of messages. The filters the message
// tally keeps (direction, type, status, time range) are counted from it, exactly, on every call, and its deep pages
// seek through it (message-tally.ts); other counts beyond TOTAL_EXACT_UP_TO are cached, and a number's or reference's
// count that is not is estimated at once and counted behind the answer.

const totals = new Map<string, { total: number; at: number }>();
const TOTALS_KEPT = 1000;
/** The counts running behind an answer, by key: one at a time per query. */
const counting = new Map<string, Promise<void>>();
/**
 * How many of the newest messages of the other filters a scan tests first (1–2 ms at 1M): with ways to rare matches,
 * matches there too few for the page at that rate over LISTING_SCAN_ROWS are counted through those ways; else their
 * rate sizes the estimate's sample.
 */
const SPARSE_PROBE_ROWS = 2000;
/**
 * The matches an estimate is made from, when fewer than LISTING_SCAN_ROWS messages hold them: the sample stops at
 * about this many (a relative standard error of about 3 %), so a common needle tests a few thousand bodies, not
 * LISTING_SCAN_ROWS (at 1M, a word in one body of eight: 11 ms instead of 27).
 */
const ESTIMATE_MATCHES = 1000;
/** The most messages of the other filters one slice of a count behind an answer reads matches among. */
const SLICE_ROWS = 100_000;

interface Count {
  total: number;
  /** Estimated from a sample rather than counted (counting would read every match). */
  estimated?: true;
  /**
   * Matches are rare among the other filters' messages (reading the page in their order would read past many of
   * them): the plan the page reads by instead.
   */
  way?: Plan;
}

/**
 * The number of matches. From the message tally when it keeps every filter; else exact up to TOTAL_EXACT_UP_TO on
 * every call, and above, cached per account and filters (without a body filter: estimated until the count running
 * behind the answer is cached); a body filter that scans counts exactly up to LISTING_SCAN_ROWS messages of the other
 * filters and beyond, unless its matches are few, estimates (countScan).
 */
async function countMatches(query: ListQuery, plan: Plan): Promise<Count> {
  if (tallied(query)) return { total: await matchesTotal(query, plan) };
  if (plan.scan) return countScan(query, plan);
  const n = await countUpTo(query, plan, TOTAL_EXACT_UP_TO);
  if (n <= TOTAL_EXACT_UP_TO) return { total: n };

  const filters = [query.messageId, query.referenceId, query.from, query.to, query.messageType, query.direction];
  filters.push(query.status, query.body, query.timestampBegin?.toISOString(), query.timestampEnd?.toISOString());
  const key = JSON.stringify([env().DATABASE_URL, query.accountId, filters]);
  const cached = totals.get(key);
  const maxAge = env().LISTING_TOTAL_CACHE_SECONDS * 1000;
  if (cached && Date.now() - cached.at < maxAge) return { total: cached.total };
  const keep = (total: number) => {
    if (totals.size >= TOTALS_KEPT) totals.delete(totals.keys().next().value!);
    totals.set(key, { total, at: Date.now() });
  };
  if (query.body === undefined) {
    // A number's or reference's count reads one index entry per match (a number that sent 250,000 messages: 0.2–0.8 s
    // on a cold cache): the answer carries an estimate, and the count runs behind it for the calls that follow, in
    // slices of time, so that other listings' statements take turns with it on the readers.
    const { count, hours } = await estimateEqual(query, plan, TOTAL_EXACT_UP_TO + 1);
    if (count.estimated && !counting.has(key))
      counting.set(
        key,
        countInSlices(query, plan, hours)
          .then(keep, () => {})
          .finally(() => counting.delete(key)),
      );
    return count;
  }
  try {
    const all = await countAll(query, plan);
    keep(all);
    return { total: all };
  } catch (error) {
    // Counting every match would take longer than the statement timeout: the page still answers, with a lower bound.
    if (error instanceof StatementTimeout) return { total: cached?.total ?? TOTAL_EXACT_UP_TO + 1 };
    throw error;
  }
}

/**
 * A body filter no index serves: the messages of the other filters are counted (from the tally, or by their
 * indexes); up to LISTING_SCAN_ROWS of them, the matches are counted exactly; beyond, the share of matches among the
 * newest of them (as many as hold about ESTIMATE_MATCHES, at most LISTING_SCAN_ROWS) is scaled to them all, unless
 * the plan has ways to rare matches and the newest SPARSE_PROBE_ROWS say they are rare: then they are counted through
 * those ways, exactly up to TOTAL_EXACT_UP_TO.
 */
async function countScan(query: ListQuery, plan: Plan): Promise<Count> {
  const others = { ...query, body: undefined };
  const rows = (await countMatches(others, await bodyPlan(others))).total;
  const sample = env().LISTING_SCAN_ROWS;
  if (rows <= sample) return { total: await countAll(query, plan) };
  const needs = query.start + query.count;
  const probe = Math.min(SPARSE_PROBE_ROWS, sample);
  const probed = await countNewestMatches(query, plan, probe);
  // At the probe's rate the sample would not hold the page either, and the matches would be few enough to count:
  // they are counted exactly through the trigram index's candidates (no dearer than the sample), and the page is
  // read the same way. A rate that projects far more matches than can be counted goes to the sample at once.
  // (Counting more common needles through their candidates, whenever they are few enough, reads their rows one by
  // one: at 1M, `55%` in one body of 120 took 14 ms warm against 21 for the sample, but 150–220 ms on a first call
  // after a bulk load, where the newest rows, read in order, share their pages.)
  const rate = probed / probe;
  if (plan.rare && rate * sample < needs && rate * rows <= 2 * TOTAL_EXACT_UP_TO) {
    const way = await plan.rare.toAll(rows);
    const n = await countUpTo(query, way, TOTAL_EXACT_UP_TO).catch((error: unknown) => {
      // Too dear after all (the indexer far behind, say): the sample's estimate answers instead.
      if (error instanceof StatementTimeout) return TOTAL_EXACT_UP_TO + 1;
      throw error;
    });
    if (n <= TOTAL_EXACT_UP_TO) return { total: n, way };
  }
  // The sample: enough of the newest messages to hold about ESTIMATE_MATCHES at the probe's rate, and `start` +
  // `count` twice over, at most LISTING_SCAN_ROWS; the probe alone when it holds that many. The 3 % is the sample's
  // chance error only (more when LISTING_SCAN_ROWS holds fewer matches); a smaller sample spans less time, and the
  // newest messages must stand for the older ones.
  const wanted = Math.max(ESTIMATE_MATCHES, 2 * needs);
  const size = probed === 0 ? sample : Math.min(sample, Math.max(probe, Math.ceil((wanted * probe) / probed)));
  const matched = size === probe ? probed : await countNewestMatches(query, plan, size);
  const total = Math.round((matched / size) * rows);
  // Too few among the newest for the page (too many to count, or not counted): the page reads the candidates' way,
  // which stops when it is full.
  return { total, estimated: true, ...(plan.rare && matched < needs && { way: plan.rare.narrowed }) };
}

/**
 * A count of more than `atLeast` matches of id, reference or number filters: the messages of the other filters are
 * counted by hour from the tally; the matches are counted exactly in the newest hours that hold LISTING_SCAN_ROWS of
 * those messages (through the filter's index: one entry per match in that window), and their share there is scaled
 * to all hours, kept between what is known (at least `atLeast`, at most all the messages of the other filters).
 * Neither query has a body filter, so the caller's plain `plan` serves both. Returns the other filters' hours too,
 * for counting the matches exactly in slices.
 */
async function estimateEqual(
  query: ListQuery,
  plan: Plan,
  atLeast: number,
): Promise<{ count: Count; hours: HourCount[] }> {
  const others = { ...query, messageId: undefined, referenceId: undefined, from: undefined, to: undefined };
  const hours = await matchesByHour(others, plan);
  const rows = totalOf(hours);
  const recent = newestHours(hours, env().LISTING_SCAN_ROWS, query.timestampBegin);
  if (recent.n >= rows) return { count: { total: await countAll(query, plan) }, hours };
  const matched = await countAll({ ...query, timestampBegin: recent.since }, plan);
  const scaled = Math.round((matched / Math.max(1, recent.n)) * rows);
  return { count: { total: Math.min(rows, Math.max(atLeast, scaled)), estimated: true }, hours };
}

/** Every match counted, one slice of time at a time: each slice holds at most SLICE_ROWS of the other filters' messages. */
async function countInSlices(query: ListQuery, plan: Plan, hours: HourCount[]): Promise<number> {
  let total = 0;
  for (const slice of timeSlices(hours, SLICE_ROWS, query.timestampBegin, query.timestampEnd))
    total += await countAll({ ...query, timestampBegin: slice.begin, timestampEnd: slice.end }, plan);
  return total;
}

async function readPage(query: ListQuery, plan: Plan) {
  const cursor = (query.after ?? query.before) ? (query.after ? "after" : "before") : null;
  const anchor = cursor ? await readAnchor(query, cursor) : null;
  if (cursor && !anchor)
    throw new ApiError("InvalidRequest", {
      detail: `'${cursor}' must be the messageId of a message of the account`,
      field: cursor,
    });
  const page = await readPageRows(query, plan, anchor);
  return query.before ? page.reverse() : page;
}

// One page of a listing; the OpenAPI document's ListResponse data is generated from this schema.
export const messagePageSchema = z.object({
  total: z.number().int().meta({ description: "Number of messages matching the query (all pages)." }),
  totalEstimated: z.literal(true).optional().meta({
    description:
      "Present (true) when `total` is an estimate: a body filter no index serves, over more messages than LISTING_SCAN_ROWS, is counted from the newest of them (as many as hold about 1,000 matches and twice start + count, at most LISTING_SCAN_ROWS) and scaled (unless its matches are rare: the newest 2,000 of the other filters' messages hold them at a rate that would leave the page short in the newest LISTING_SCAN_ROWS, and there are at most 10,000; they are then counted exactly through the trigram index); so is a `from`, `to` or `referenceId` filter matching more than 10,000 messages, on its first call (it is counted meanwhile, and the next calls have the exact total).",
  }),
  position: z.number().int().meta({ description: "Offset of this page (= start)." }),
  results: z.array(listingResultSchema),
});

export type MessagePage = z.infer<typeof messagePageSchema>;

/**
 * One page of an account's messages and the total for the query (the account is part of every query): the listing
 * of GET /v3/messages and of the portal's Messages page. A query that runs past LISTING_TIMEOUT_SECONDS answers
 * 503 QueryTimeout.
 */
export async function queryMessages(query: ListQuery): Promise<MessagePage> {
  try {
    const plan = await bodyPlan(query);
    if (tallied(query)) {
      // A deep offset page of the default order seeks through the counts; any other reads its rows beside them.
      const seek = !query.after && !query.before && query.sortBy === "timestamp" && query.start >= SEEK_FROM;
      if (seek) {
        const hours = await matchesByHour(query, plan);
        const rows = await seekPage(query, plan, hours);
        return { total: totalOf(hours), position: query.start, results: rows.map(toListingResult) };
      }
      const [total, rows] = await Promise.all([matchesTotal(query, plan), readPage(query, plan)]);
      return { total, position: query.start, results: rows.map(toListingResult) };
    }
    // A scan with other ways to rare matches: the count says which way the page reads, and whether there is a page
    // to read at all (an exact total at or below the offset leaves none).
    const [count, rows] = plan.rare
      ? await countMatches(query, plan).then(async (c) => {
          const none = !c.estimated && c.total <= query.start && !query.after && !query.before;
          return [c, none ? [] : await readPage(query, c.way ?? plan)] as const;
        })
      : await Promise.all([countMatches(query, plan), readPage(query, plan)]);
    return {
      // An estimate is never below what the page itself shows.
      total: count.estimated ? Math.max(count.total, query.start + rows.length) : count.total,
      ...(count.estimated && { totalEstimated: true as const }),
      position: query.start,
      results: rows.map(toListingResult),
    };
  } catch (error) {
    if (error instanceof StatementTimeout)
      throw new ApiError("QueryTimeout", {
        detail: `The query ran longer than ${env().LISTING_TIMEOUT_SECONDS} s and was stopped: narrow it (a time range, 'from', 'status') or page with 'after' instead of a large 'start'`,
      });
    throw error;
  }
}

/**
 * One page of the listing without its total: for callers that show a few matches and no count (the conversations'
 * search), so that a new search text does not pay for counting every match.
 */
export async function findMessages(query: ListQuery): Promise<MessagePage["results"]> {
  try {
    const plan = await bodyPlan(query);
    return (await readPage(query, plan)).map(toListingResult);
  } catch (error) {
    if (error instanceof StatementTimeout)
      throw new ApiError("QueryTimeout", {
        detail: `The search ran longer than ${env().LISTING_TIMEOUT_SECONDS} s and was stopped: search for a longer text`,
      });
    throw error;
  }
}

/** GET /v3/messages: the query's parameters as given, then one page of the account's messages and the total. */
export async function listMessages(input: {
  principal: ApiPrincipal;
  query: ListQuery;
}): Promise<Record<string, unknown> & MessagePage> {
  const { principal, query } = input;
  assertAccount(principal, query.accountId);
  return { ...query.echo, ...(await queryMessages(query)) };
}
