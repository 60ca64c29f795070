import { assertAccount, type ApiPrincipal } from "../api/authenticate";
import { successEnvelope, type Envelope } from "../api/envelope";
import { db, dbProvider } from "../db/client";
import type { Prisma } from "../db/generated/sqlite/client";
import { listingSelect, toListingResult } from "./message-serializers";
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
    // The decision: a case-insensitive substring. SQLite's LIKE already ignores ASCII case; PostgreSQL needs
    // the insensitive mode (ILIKE), which the SQLite client's types do not know.
    where.body =
      dbProvider() === "postgresql"
        ? ({ contains: query.body, mode: "insensitive" } as Prisma.StringFilter)
        : { contains: query.body };
  }
  if (query.timestampBegin || query.timestampEnd) {
    where.createdAt = {
      ...(query.timestampBegin ? { gte: query.timestampBegin } : {}),
      ...(query.timestampEnd ? { lt: query.timestampEnd } : {}),
    };
  }
  return where;
}

/** GET /v3/messages: one page of the account's messages and the total for the query. */
export async function listMessages(input: { principal: ApiPrincipal; query: ListQuery }): Promise<Envelope> {
  const { principal, query } = input;
  assertAccount(principal, query.accountId);
  const where = whereOf(query);
  const column = SORT_COLUMNS[query.sortBy];
  // The id (UUIDv7, time-ordered) breaks ties so that pages never repeat or skip a message.
  const orderBy: Prisma.MessageOrderByWithRelationInput[] = [{ [column]: query.sortDir }];
  if (column !== "createdAt") orderBy.push({ createdAt: query.sortDir });
  orderBy.push({ id: query.sortDir });
  const client = db();
  const [total, rows] = await Promise.all([
    client.message.count({ where }),
    client.message.findMany({ where, orderBy, skip: query.start, take: query.count, select: listingSelect }),
  ]);
  return successEnvelope("QueryCompletedSuccessfully", {
    ...query.echo,
    total,
    position: query.start,
    results: rows.map(toListingResult),
  });
}
