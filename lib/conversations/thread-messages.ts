import { readDb as db } from "../db/client";
import { FINAL_STATUSES, isFailed } from "../messaging/message-status";
import { attachmentsOf } from "../media/media-records";
import type { MessageChange, ThreadMessage } from "../realtime/change-schema";

// Messages as the conversation view shows them, from Message rows: who sent an outbound one (a staff member's name
// when the API's userType is "agent" and userId is one of the account's users), why a failed one failed (its last
// outcome SDR, else the refusal's reason), and whether it is an automated (non-conversational) line.
export const threadMessageSelect = {
  id: true,
  accountId: true,
  direction: true,
  fromNumber: true,
  toNumber: true,
  body: true,
  media: true,
  status: true,
  rejectReason: true,
  numSegments: true,
  encoding: true,
  conversational: true,
  userId: true,
  userType: true,
  referenceId: true,
  conversationId: true,
  createdAt: true,
  updatedAt: true,
} as const;

export interface ThreadMessageRow {
  id: string;
  accountId: string;
  direction: string;
  fromNumber: string;
  toNumber: string;
  body: string;
  media: string;
  status: string;
  rejectReason: string | null;
  numSegments: number;
  encoding: string;
  conversational: boolean;
  userId: string | null;
  userType: string | null;
  referenceId: string | null;
  conversationId: string | null;
  createdAt: Date;
  updatedAt: Date;
}

function parseMedia(json: string): string[] {
  try {
    const value = JSON.parse(json) as unknown;
    return Array.isArray(value) ? value.filter((v): v is string => typeof v === "string") : [];
  } catch {
    return [];
  }
}

/**
 * ThreadMessages for rows of one account; `conversationOf` names the conversation of a row that has none of its
 * own (an automated message shown in a thread).
 */
export async function toThreadMessages(
  accountId: string,
  rows: ThreadMessageRow[],
  conversationOf: (row: ThreadMessageRow) => string | null = (row) => row.conversationId,
): Promise<ThreadMessage[]> {
  if (rows.length === 0) return [];
  const agentIds = [...new Set(rows.filter((r) => r.userType === "agent" && r.userId).map((r) => r.userId!))];
  const users =
    agentIds.length > 0
      ? await db().user.findMany({
          where: { accountId, id: { in: agentIds } },
          select: { id: true, name: true, email: true },
        })
      : [];
  const names = new Map(users.map((u) => [u.id, u.name || u.email]));
  const failed = rows.filter((r) => isFailed(r.status));
  const reasons = new Map<string, string>();
  if (failed.length > 0) {
    const sdrs = await db().sdr.findMany({
      where: { messageId: { in: failed.map((r) => r.id) }, status: { in: [...FINAL_STATUSES] } },
      orderBy: { id: "asc" },
      select: { messageId: true, statusDetails: true },
    });
    for (const s of sdrs) if (s.statusDetails) reasons.set(s.messageId, s.statusDetails);
  }
  const attachments = await attachmentsOf(rows.filter((r) => r.media !== "[]").map((r) => r.id));
  const out: ThreadMessage[] = [];
  for (const row of rows) {
    const conversationId = conversationOf(row);
    if (!conversationId) continue;
    out.push({
      id: row.id,
      conversationId,
      direction: row.direction === "inbound" ? "inbound" : "outbound",
      body: row.body,
      media: parseMedia(row.media),
      attachments: attachments.get(row.id) ?? [],
      status: row.status,
      reason: row.rejectReason ?? reasons.get(row.id) ?? "",
      numSegments: row.numSegments,
      encoding: row.encoding,
      automated: row.direction === "outbound" && !row.conversational,
      userId: row.userId,
      userType: row.userType,
      senderName: row.userType === "agent" && row.userId ? (names.get(row.userId) ?? null) : null,
      referenceId: row.referenceId,
      createdAt: row.createdAt.toISOString(),
      updatedAt: row.updatedAt.toISOString(),
    });
  }
  return out;
}

/** The account's newest position in the log of changes (0 before any). */
export async function currentPosition(accountId: string): Promise<number> {
  const last = await db().sdr.findFirst({ where: { accountId }, orderBy: { id: "desc" }, select: { id: true } });
  return last?.id ?? 0;
}

/**
 * The changes that SDR rows report, one per message (at the position of its newest SDR among them), with the
 * message's current state. A message outside any conversation is left out, except a non-conversational outbound
 * message from an account number to a phone that has a conversation with it (shown as an automated line).
 */
export async function changesOfSdrs(
  sdrs: { id: number; messageId: string; accountId: string }[],
): Promise<MessageChange[]> {
  if (sdrs.length === 0) return [];
  const positions = new Map<string, number>();
  for (const s of sdrs) positions.set(s.messageId, Math.max(positions.get(s.messageId) ?? 0, s.id));
  const rows = await db().message.findMany({
    where: { id: { in: [...positions.keys()] } },
    select: threadMessageSelect,
  });
  // Automated lines: the conversation of (account number, phone), if there is one and it was there first.
  const loose = rows.filter((r) => !r.conversationId && r.direction === "outbound");
  const byPair = new Map<string, { id: string; createdAt: Date }>();
  if (loose.length > 0) {
    const conversations = await db().conversation.findMany({
      where: {
        OR: loose
          .slice(0, 500)
          .map((r) => ({ accountId: r.accountId, accountNumber: r.fromNumber, remoteNumber: r.toNumber })),
      },
      select: { id: true, accountId: true, accountNumber: true, remoteNumber: true, createdAt: true },
    });
    for (const c of conversations) byPair.set(`${c.accountId} ${c.accountNumber} ${c.remoteNumber}`, c);
  }
  const conversationOf = (r: ThreadMessageRow) => {
    if (r.conversationId) return r.conversationId;
    const c = byPair.get(`${r.accountId} ${r.fromNumber} ${r.toNumber}`);
    return c && c.createdAt.getTime() <= r.createdAt.getTime() ? c.id : null;
  };
  const changes: MessageChange[] = [];
  const byAccount = new Map<string, ThreadMessageRow[]>();
  for (const r of rows) byAccount.set(r.accountId, [...(byAccount.get(r.accountId) ?? []), r]);
  for (const [accountId, accountRows] of byAccount) {
    for (const message of await toThreadMessages(accountId, accountRows, conversationOf)) {
      changes.push({
        position: positions.get(message.id)!,
        accountId,
        conversationId: message.conversationId,
        message,
      });
    }
  }
  return changes.sort((a, b) => a.position - b.position);
}

// On PostgreSQL, SDR ids are handed out before commit, so one with a smaller id can become visible after a larger
// one was read. A catch-up starts this far behind the client's position; replays are idempotent on the client.
const CATCH_UP_OVERLAP = 500;

/** Everything after `after` for one account, or tooOld when more than `limit` changes would have to be replayed. */
export async function changesAfter(input: { accountId: string; after: number; limit: number }) {
  const position = await currentPosition(input.accountId);
  const from = Math.max(0, input.after - CATCH_UP_OVERLAP);
  const sdrs = await db().sdr.findMany({
    where: { accountId: input.accountId, id: { gt: from } },
    orderBy: { id: "asc" },
    take: input.limit + CATCH_UP_OVERLAP + 1,
    select: { id: true, messageId: true, accountId: true },
  });
  const fresh = sdrs.filter((s) => s.id > input.after).length;
  if (fresh > input.limit) return { changes: [], position, tooOld: true };
  return { changes: await changesOfSdrs(sdrs), position: Math.max(position, sdrs.at(-1)?.id ?? 0), tooOld: false };
}
