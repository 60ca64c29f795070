import { db } from "../db/client";

export interface ActiveUser {
  id: string;
  email: string;
  name: string;
  accountId: string;
  role: "admin" | "agent";
}

/**
 * The one rule for whether a session still stands, for pages, routes and sockets alike: the user it names exists,
 * is not disabled, and still belongs to the account the session was made for; the role is the database's, not the
 * token's. No next-auth imports here, so the socket server can use it.
 */
export async function activeUser(userId: string, accountId: unknown): Promise<ActiveUser | null> {
  const user = await db().user.findUnique({
    where: { id: userId },
    select: { id: true, email: true, name: true, accountId: true, role: true, disabledAt: true },
  });
  if (!user || user.disabledAt || user.accountId !== accountId) return null;
  return {
    id: user.id,
    email: user.email,
    name: user.name,
    accountId: user.accountId,
    role: user.role === "admin" ? "admin" : "agent",
  };
}
