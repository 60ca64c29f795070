import { env } from "../env";
import { migrate } from "../db/migrate";
import { prepareConnection } from "../db/client";
import { logger } from "../log";

/** Applies pending migrations and readies the connection; every process entry calls it before using the database. */
export async function prepareDatabase(): Promise<void> {
  const result = await migrate(env().DATABASE_URL);
  for (const warning of result.warnings) logger().warn(warning);
  if (result.applied.length > 0) logger().info({ migrations: result.applied }, "database migrated");
  await prepareConnection();
}
