import { assertAccount, type ApiPrincipal } from "../api/authenticate";
import { successEnvelope, type Envelope } from "../api/envelope";
import { db, dbProvider } from "../db/client";
import type { Prisma } from "../db/generated/sqlite/client";
import { listingSelect, toListingResult, type ListingResult, type ListingRow } from "./message-serializers";
import type { ListQuery } from "./list-schema";

const SORT_COLUMNS = {
  timestamp: "createdAt",
  from: "fromNumber",
  to: "toNumber",
  status: "status",
  direction: "direction",
  messageType: "messageType",
  numSegments: "numSegments",
} as const;

function whereOf(query: ListQuery): Prisma.MessageWhereInput {
  const where: Prisma.MessageWhereInput = { accountId: query.accountId };
  if (query.messageId) where.id = query.messageId;
  if (query.referenceId) where.referenceId = query.referenceId;
  if (query.from) where.fromNumber = query.from;
  if (query.to) where.toNumber = query.to;
  if (query.messageType) where.messageType = query.messageType;
  if (query.direction) where.direction = query.direction;
  if (query.status) where.status = query.status;
  if (query.body) {
    // The decision: a case-insensitive substring. Prisma turns `contains` into LIKE '%' || value || '%' without
    // escaping the value, so '%' and '_' (and '\' on PostgreSQL) would act as wildcards. PostgreSQL: the insensitive
    // mode (ILIKE; the SQLite client's types do not know it), with the value escaped by backslashes, LIKE's default
    // escape character there. SQLite: its LIKE has no escape character unless the query names one (Prisma does
    // not) and ignores the case of ASCII letters only; see exactBodyPage for the needles LIKE cannot match exactly.
    where.body =
      dbProvider() === "postgresql"
        ? ({ contains: query.body.replace(/[\\%_]/g, "\\$&"), mode: "insensitive" } as Prisma.StringFilter)
        : { contains: sqliteNeedsExactScan(query.body) ? sqliteSupersetPattern(query.body) : query.body };
  }
  if (query.timestampBegin || query.timestampEnd) {
    where.createdAt = {
      ...(query.timestampBegin ? { gte: query.timestampBegin } : {}),
      ...(query.timestampEnd ? { lt: query.timestampEnd } : {}),
    };
  }
  return where;
}

const EXACT_SCAN_BATCH = 1000;

/** A letter outside ASCII that has case (é/É): SQLite's LIKE compares it exactly. */
function isCasedNonAscii(char: string): boolean {
  return char > "\x7f" && char.toLowerCase() !== char.toUpperCase();
}

/** SQLite's LIKE alone is exact for the needle unless it has a wildcard character or a cased non-ASCII letter. */
function sqliteNeedsExactScan(needle: string): boolean {
  return /[%_]/.test(needle) || Array.from(needle).some(isCasedNonAscii);
}

/** The LIKE value that matches at least every body the needle matches: a cased non-ASCII letter becomes '_'. */
function sqliteSupersetPattern(needle: string): string {
  return Array.from(needle, (char) => (isCasedNonAscii(char) ? "_" : char)).join("");
}

/** Lower case, character by character (so that lengths, and LIKE's '_' per character, still line up). */
function foldCase(text: string): string {
  return Array.from(text, (char) => {
    const lower = char.toLowerCase();
    return Array.from(lower).length === 1 ? lower : char;
  }).join("");
}

/**
 * SQLite with a needle LIKE cannot match exactly: the LIKE superset (whereOf) is read in the listing's order, batch
 * by batch, and the exact case-insensitive substring test runs here, counting the matches and keeping the page.
 */
async function exactBodyPage(
  where: Prisma.MessageWhereInput,
  orderBy: Prisma.MessageOrderByWithRelationInput[],
  query: ListQuery,
): Promise<{ total: number; rows: ListingRow[] }> {
  const client = db();
  const needle = foldCase(query.body!);
  let total = 0;
  const pageIds: string[] = [];
  let cursor: string | undefined;
  for (;;) {
    const batch = await client.message.findMany({
      where,
      orderBy,
      take: EXACT_SCAN_BATCH,
      ...(cursor ? { cursor: { id: cursor }, skip: 1 } : {}),
      select: { id: true, body: true },
    });
    for (const row of batch) {
      if (!foldCase(row.body).includes(needle)) continue;
      if (total >= query.start && pageIds.length < query.count) pageIds.push(row.id);
      total += 1;
    }
    if (batch.length < EXACT_SCAN_BATCH) break;
    cursor = batch[batch.length - 1]!.id;
  }
  if (pageIds.length === 0) return { total, rows: [] };
  const pageRows = await client.message.findMany({ where: { id: { in: pageIds } }, select: listingSelect });
  const byId = new Map(pageRows.map((row) => [row.id, row]));
  return { total, rows: pageIds.flatMap((id) => byId.get(id) ?? []) };
}

export interface MessagePage {
  total: number;
  position: number;
  results: ListingResult[];
}

/**
 * One page of an account's messages and the total for the query (the account is part of every `where`): the
 * listing of GET /v3/messages and of the portal's Messages page.
 */
export async function queryMessages(query: ListQuery): Promise<MessagePage> {
  const where = whereOf(query);
  const column = SORT_COLUMNS[query.sortBy];
  // The id (UUIDv7, time-ordered) breaks ties so that pages never repeat or skip a message.
  const orderBy: Prisma.MessageOrderByWithRelationInput[] = [{ [column]: query.sortDir }];
  if (column !== "createdAt") orderBy.push({ createdAt: query.sortDir });
  orderBy.push({ id: query.sortDir });
  const client = db();
  const [total, rows] =
    query.body && dbProvider() === "sqlite" && sqliteNeedsExactScan(query.body)
      ? await exactBodyPage(where, orderBy, query).then((page) => [page.total, page.rows] as const)
      : await Promise.all([
          client.message.count({ where }),
          client.message.findMany({ where, orderBy, skip: query.start, take: query.count, select: listingSelect }),
        ]);
  return { total, position: query.start, results: rows.map(toListingResult) };
}

/** GET /v3/messages: one page of the account's messages and the total for the query. */
export async function listMessages(input: { principal: ApiPrincipal; query: ListQuery }): Promise<Envelope> {
  const { principal, query } = input;
  assertAccount(principal, query.accountId);
  return successEnvelope("QueryCompletedSuccessfully", { ...query.echo, ...(await queryMessages(query)) });
}
