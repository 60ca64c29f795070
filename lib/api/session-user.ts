import { ApiError } from "./api-error";
import type { AdminActor } from "./admin-actor";

/** The portal user behind a self-service request (Profile): an API key has no password or sessions of its own. */
export function sessionUser(actor: AdminActor): Extract<AdminActor, { kind: "user" }> {
  if (actor.kind !== "user") throw new ApiError("Forbidden", { detail: "only a signed-in portal user has a profile" });
  return actor;
}
