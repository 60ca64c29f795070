import { ApiError } from "../api/api-error";
import type { AdminContext } from "../api/with-admin";

/** The staff member behind a conversation route: read markers and replies belong to a portal user, not to a key. */
export function staffMember(ctx: AdminContext): { userId: string; name: string } {
  if (ctx.actor.kind !== "user") throw new ApiError("Forbidden", { detail: "conversations are for portal users" });
  return { userId: ctx.actor.userId, name: ctx.actor.name };
}
