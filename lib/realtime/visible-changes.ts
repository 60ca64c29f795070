import { readDb } from "../db/client";
import { canSee } from "../conversations/assign-decisions";
import type { MessageChange } from "./change-schema";

// The live feed under an account's "agents see only theirs and the unassigned ones" setting: message changes of a
// conversation reach only the staff who may see it, as the list and the thread routes do.

/**
 * For one account's changes: null when every staff member of the account may see them all (the default setting),
 * otherwise a filter that keeps, for one user, the changes of the conversations they may see.
 */
export async function visibilityFilter(
  accountId: string,
  changes: MessageChange[],
): Promise<((userId: string) => Promise<MessageChange[]>) | null> {
  const account = await readDb().account.findUnique({
    where: { id: accountId },
    select: { conversationVisibility: true },
  });
  if (account?.conversationVisibility !== "assigned") return null;
  const ids = [...new Set(changes.map((c) => c.conversationId))];
  const conversations = await readDb().conversation.findMany({
    where: { accountId, id: { in: ids } },
    select: { id: true, assigneeId: true },
  });
  const assignee = new Map(conversations.map((c) => [c.id, c.assigneeId]));
  const roles = new Map<string, "admin" | "agent">();
  return async (userId) => {
    if (!roles.has(userId)) {
      const user = await readDb().user.findFirst({ where: { id: userId, accountId }, select: { role: true } });
      roles.set(userId, user?.role === "admin" ? "admin" : "agent");
    }
    const viewer = { userId, role: roles.get(userId)! };
    return changes.filter((c) => canSee(viewer, "assigned", assignee.get(c.conversationId) ?? null));
  };
}
