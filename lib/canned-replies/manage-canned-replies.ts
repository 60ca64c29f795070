import type { AdminActor } from "../api/admin-actor";
import { ApiError } from "../api/api-error";
import { db } from "../db/client";
import { uuidv7 } from "../db/ids";
import type {
  CannedReplyScope,
  CannedReplyView,
  CreateCannedReplyInput,
  UpdateCannedReplyInput,
} from "./canned-reply-schema";

/**
 * Who manages canned replies: a staff member (their personal replies belong to them) or an API key of the account,
 * which acts as an admin without personal replies of its own.
 */
export interface CannedReplyViewer {
  accountId: string;
  userId: string | null;
  role: "admin" | "agent";
}

type Row = { id: string; ownerId: string | null; shortcut: string; text: string; updatedAt: Date };

function toView(row: Row, viewer: CannedReplyViewer): CannedReplyView {
  const scope: CannedReplyScope = row.ownerId === null ? "account" : "personal";
  return {
    id: row.id,
    shortcut: row.shortcut,
    text: row.text,
    scope,
    editable: scope === "personal" || viewer.role === "admin",
    updatedAt: row.updatedAt.toISOString(),
  };
}

/** What one viewer sees: the account-wide replies and their own personal ones (tenant check in the where). */
function visibleTo(viewer: CannedReplyViewer) {
  return {
    accountId: viewer.accountId,
    OR: [{ ownerId: null }, ...(viewer.userId ? [{ ownerId: viewer.userId }] : [])],
  };
}

/** The viewer's canned replies, by shortcut. */
export async function listCannedReplies(viewer: CannedReplyViewer): Promise<CannedReplyView[]> {
  const rows = await db().cannedReply.findMany({
    where: visibleTo(viewer),
    orderBy: [{ shortcut: "asc" }, { id: "asc" }],
  });
  return rows.map((row) => toView(row, viewer));
}

function ownerFor(viewer: CannedReplyViewer, scope: CannedReplyScope | undefined): string | null {
  const wanted = scope ?? (viewer.role === "admin" ? "account" : "personal");
  if (wanted === "account") {
    if (viewer.role !== "admin")
      throw new ApiError("Forbidden", { detail: "only an admin can make a canned reply account-wide", field: "scope" });
    return null;
  }
  if (!viewer.userId)
    throw new ApiError("InvalidRequest", { detail: "scope: an API key has no personal replies", field: "scope" });
  return viewer.userId;
}

/**
 * A shortcut must be unique among what anyone who would see the reply sees: an account-wide one among all the
 * account's replies, a personal one among the account-wide ones and the owner's own. Compared without case.
 */
async function checkShortcut(accountId: string, ownerId: string | null, shortcut: string, exceptId?: string) {
  const where = ownerId === null ? { accountId } : { accountId, OR: [{ ownerId: null }, { ownerId }] };
  const rows = await db().cannedReply.findMany({ where, select: { id: true, shortcut: true } });
  const wanted = shortcut.toLowerCase();
  if (rows.some((r) => r.id !== exceptId && r.shortcut.toLowerCase() === wanted))
    throw new ApiError("InvalidRequest", {
      detail: `shortcut: /${shortcut} is already used by another canned reply`,
      field: "shortcut",
    });
}

export async function createCannedReply(
  viewer: CannedReplyViewer,
  input: CreateCannedReplyInput,
): Promise<CannedReplyView> {
  const ownerId = ownerFor(viewer, input.scope);
  await checkShortcut(viewer.accountId, ownerId, input.shortcut);
  const row = await db().cannedReply.create({
    data: { id: uuidv7(), accountId: viewer.accountId, ownerId, shortcut: input.shortcut, text: input.text },
  });
  return toView(row, viewer);
}

/** A reply the viewer sees and may change: another's personal reply or another account's is not found. */
async function findEditable(viewer: CannedReplyViewer, id: string): Promise<Row> {
  const row = await db().cannedReply.findFirst({ where: { id, ...visibleTo(viewer) } });
  if (!row) throw new ApiError("NotFound", { detail: "no such canned reply" });
  if (row.ownerId === null && viewer.role !== "admin")
    throw new ApiError("Forbidden", { detail: "only an admin can change an account-wide canned reply" });
  return row;
}

export async function updateCannedReply(
  viewer: CannedReplyViewer,
  id: string,
  input: UpdateCannedReplyInput,
): Promise<CannedReplyView> {
  const row = await findEditable(viewer, id);
  const ownerId = input.scope ? ownerFor(viewer, input.scope) : row.ownerId;
  const shortcut = input.shortcut ?? row.shortcut;
  if (input.shortcut !== undefined || ownerId !== row.ownerId)
    await checkShortcut(viewer.accountId, ownerId, shortcut, id);
  const updated = await db().cannedReply.update({
    where: { id: row.id },
    data: { shortcut, text: input.text ?? row.text, ownerId },
  });
  return toView(updated, viewer);
}

export async function deleteCannedReply(viewer: CannedReplyViewer, id: string): Promise<{ id: string }> {
  const row = await findEditable(viewer, id);
  await db().cannedReply.deleteMany({ where: { id: row.id, accountId: viewer.accountId } });
  return { id: row.id };
}

/** The viewer behind an admin route: a portal user as themselves, an API key as an admin of the account. */
export function cannedReplyViewer(ctx: { accountId: string; actor: AdminActor }): CannedReplyViewer {
  return ctx.actor.kind === "user"
    ? { accountId: ctx.accountId, userId: ctx.actor.userId, role: ctx.actor.role }
    : { accountId: ctx.accountId, userId: null, role: "admin" };
}
