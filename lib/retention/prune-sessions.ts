import { db } from "../db/client";

// Ended portal sessions (revoked, or expired) are kept a day, so that "last seen" can still be looked up after a
// revoke, then deleted. A deployment has a few sessions per user: one statement does.
export const ENDED_SESSION_RETENTION_MS = 86_400_000;

export async function pruneSessions(now: number): Promise<number> {
  const before = new Date(now - ENDED_SESSION_RETENTION_MS);
  const { count } = await db().portalSession.deleteMany({
    where: { OR: [{ revokedAt: { lt: before } }, { expiresAt: { lt: before } }] },
  });
  return count;
}
