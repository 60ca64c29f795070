import { recordAudit } from "../audit/audit-trail";
import { db } from "../db/client";
import { uuidv7 } from "../db/ids";
import { findVisibleConversation, inboxViewer } from "../conversations/conversation-status";
import { findMentions, staffName } from "./find-mentions";
import type { MentionView, NoteView } from "./note-schema";

// Internal notes (model ConversationNote): written by staff in a conversation's thread, never sent to the phone;
// the staff members a note mentions get a NoteMention each, unread until they open the conversation.

type NoteRow = {
  id: string;
  conversationId: string;
  authorId: string;
  body: string;
  mentions: string;
  createdAt: Date;
};

function ids(json: string): string[] {
  try {
    const v = JSON.parse(json) as unknown;
    return Array.isArray(v) ? v.filter((x): x is string => typeof x === "string") : [];
  } catch {
    return [];
  }
}

async function staffNames(accountId: string, userIds: string[]): Promise<Map<string, string>> {
  if (userIds.length === 0) return new Map();
  const users = await db().user.findMany({
    where: { accountId, id: { in: [...new Set(userIds)] } },
    select: { id: true, name: true, email: true },
  });
  return new Map(users.map((u) => [u.id, staffName(u)]));
}

async function toViews(accountId: string, rows: NoteRow[]): Promise<NoteView[]> {
  const names = await staffNames(
    accountId,
    rows.flatMap((r) => [r.authorId, ...ids(r.mentions)]),
  );
  return rows.map((r) => ({
    id: r.id,
    conversationId: r.conversationId,
    authorId: r.authorId,
    authorName: names.get(r.authorId) ?? "A former staff member",
    body: r.body,
    mentions: ids(r.mentions).map((id) => ({ id, name: names.get(id) ?? "" })),
    createdAt: r.createdAt.toISOString(),
  }));
}

/**
 * The conversation, if `userId` may see it (another account's, or one the account's setting hides from this agent,
 * is not found), and who may see its notes live: the whole account, or its admins and its assignee.
 */
async function visibleConversation(accountId: string, conversationId: string, userId: string) {
  const viewer = await inboxViewer(accountId, userId);
  const conversation = await findVisibleConversation(accountId, conversationId, viewer);
  return { conversation, limited: viewer.visibility === "assigned" && conversation.assigneeId !== null };
}

/** A conversation's notes for the notes route, as `userId` may see them. */
export async function conversationNotes(
  accountId: string,
  conversationId: string,
  userId: string,
): Promise<NoteView[]> {
  await visibleConversation(accountId, conversationId, userId);
  return listNotes(accountId, conversationId);
}

/** The conversation's notes, oldest first (the newest `limit`). */
export async function listNotes(accountId: string, conversationId: string, limit = 300): Promise<NoteView[]> {
  const rows = await db().conversationNote.findMany({
    where: { accountId, conversationId },
    orderBy: [{ createdAt: "desc" }, { id: "desc" }],
    take: limit,
  });
  return toViews(accountId, rows.reverse());
}

/**
 * Adds a note to a conversation of the account the author may see (another account's is not found). Nothing is
 * sent: no message, no SDR. Mentions are resolved against the account's enabled staff and stored, the author's own
 * excepted. `audience` is who may see it live: "account", or the user ids of the account's admins and the
 * conversation's assignee (an account whose agents see only theirs, the conversation assigned).
 */
export async function addNote(input: {
  accountId: string;
  conversationId: string;
  authorId: string;
  body: string;
  actor: string;
  ip?: string;
}): Promise<{ note: NoteView; audience: "account" | string[] }> {
  const { accountId, conversationId, authorId } = input;
  const { conversation, limited } = await visibleConversation(accountId, conversationId, authorId);
  const staff = await db().user.findMany({
    where: { accountId, disabledAt: null },
    select: { id: true, name: true, email: true },
  });
  const mentioned = findMentions(input.body, staff).filter((s) => s.id !== authorId);
  const id = uuidv7();
  const createdAt = new Date();
  const row = await db().$transaction(async (tx) => {
    const note = await tx.conversationNote.create({
      data: {
        id,
        accountId,
        conversationId,
        authorId,
        body: input.body,
        mentions: JSON.stringify(mentioned.map((s) => s.id)),
        createdAt,
      },
    });
    if (mentioned.length > 0)
      await tx.noteMention.createMany({
        data: mentioned.map((s) => ({ id: uuidv7(), accountId, userId: s.id, noteId: id, conversationId, createdAt })),
      });
    await recordAudit(
      {
        accountId,
        actor: input.actor,
        action: "note.added",
        target: conversationId,
        detail: mentioned.length > 0 ? `mentions ${mentioned.length}` : undefined,
        ip: input.ip,
      },
      tx,
    );
    return note;
  });
  const note = (await toViews(accountId, [row]))[0]!;
  if (!limited) return { note, audience: "account" };
  const admins = await db().user.findMany({ where: { accountId, role: "admin" }, select: { id: true } });
  return { note, audience: [...new Set([...admins.map((a) => a.id), conversation.assigneeId!])] };
}

/** The viewer's unread mentions, newest first, and how many there are. */
export async function unreadMentions(
  accountId: string,
  userId: string,
): Promise<{ count: number; mentions: MentionView[] }> {
  const where = { accountId, userId, readAt: null };
  const [count, rows] = await Promise.all([
    db().noteMention.count({ where }),
    db().noteMention.findMany({ where, orderBy: [{ createdAt: "desc" }, { id: "desc" }], take: 20 }),
  ]);
  const notes = await db().conversationNote.findMany({
    where: { accountId, id: { in: rows.map((r) => r.noteId) } },
  });
  const views = new Map((await toViews(accountId, notes)).map((n) => [n.id, n]));
  return {
    count,
    mentions: rows.map((r) => ({
      id: r.id,
      noteId: r.noteId,
      conversationId: r.conversationId,
      authorName: views.get(r.noteId)?.authorName ?? "",
      body: views.get(r.noteId)?.body ?? "",
      createdAt: r.createdAt.toISOString(),
    })),
  };
}

/** Marks the viewer's mentions read: those of one conversation, or all. */
export async function markMentionsRead(input: { accountId: string; userId: string; conversationId?: string }) {
  const { count } = await db().noteMention.updateMany({
    where: {
      accountId: input.accountId,
      userId: input.userId,
      readAt: null,
      ...(input.conversationId ? { conversationId: input.conversationId } : {}),
    },
    data: { readAt: new Date() },
  });
  return { marked: count };
}
