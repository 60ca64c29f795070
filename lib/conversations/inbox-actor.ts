import type { AdminContext } from "../api/with-admin";
import { inboxViewer, type InboxActor } from "./conversation-status";
import { staffMember } from "./staff-member";

/** The staff member behind an inbox route (assign, resolve, snooze), with their role and the account's visibility. */
export async function inboxActor(ctx: AdminContext): Promise<InboxActor> {
  const { userId } = staffMember(ctx);
  return { ...(await inboxViewer(ctx.accountId, userId)), ip: ctx.ip };
}
