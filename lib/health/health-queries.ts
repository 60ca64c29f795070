import { db } from "../db/client";

// The health check's one statement: the database answers at all.

/** Resolves once the database has answered a trivial query; rejects when it cannot. */
export async function pingDatabase(): Promise<void> {
  await db().$queryRawUnsafe("SELECT 1");
}
