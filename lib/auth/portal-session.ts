import type { Session } from "next-auth";
import type { PortalSession } from "./auth-options";

/** The portal user of a next-auth session, or null when there is none (or it lacks the account). */
export function portalUser(session: Session | null): PortalSession["user"] | null {
  const user = session?.user as Partial<PortalSession["user"]> | undefined;
  if (!user?.accountId || !user.email || !user.id) return null;
  return {
    id: user.id,
    email: user.email,
    name: user.name,
    accountId: user.accountId,
    role: user.role === "admin" ? "admin" : "agent",
  };
}
