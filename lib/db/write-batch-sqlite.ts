import { env } from "../env";
import { processSingleton } from "../process-singletons";
import { sqliteFilePath } from "./sqlite-path";
import { SqliteSendWriter } from "./sqlite-send-writer";
import { batchRows } from "./send-rows";
import type { SameTextRule, SendWrite } from "./send-batch";

// The group commit's SQLite path: each batch goes to the send writer's thread, which counts automatic bulk in the
// batch's own transaction and applies the patches of the writes it makes bulk.

// One writer per process, like the Prisma client, and for the database the environment names. disconnectDb()
// (client.ts) closes it by the same key.
const holder = processSingleton(
  "sendWriter",
  (): { __parleySendWriter?: { url: string; writer: SqliteSendWriter } } => ({}),
);

function sqliteWriter(): SqliteSendWriter {
  const url = env().DATABASE_URL;
  if (holder.__parleySendWriter?.url !== url || holder.__parleySendWriter.writer.stopped) {
    holder.__parleySendWriter?.writer.close();
    holder.__parleySendWriter = { url, writer: new SqliteSendWriter(sqliteFilePath(url)) };
  }
  return holder.__parleySendWriter.writer;
}

/** Commits the writes on SQLite; returns, in write order, whether each became bulk by its text's count. */
export async function writeBatchSqlite(
  writes: SendWrite[],
  rule: SameTextRule,
  prune: number | null,
): Promise<boolean[]> {
  const { tables, counts } = batchRows(writes, rule);
  const bulk = writes.map(() => false);
  for (const i of await sqliteWriter().write(tables, rule, counts, prune)) bulk[counts[i]!.write] = true;
  return bulk;
}

/** One small write on the send writer's thread (its own durable transaction), off the event loop. */
export function runOnSendWriter(sql: string, params: unknown[]): Promise<void> {
  return sqliteWriter().run(sql, params);
}

/**
 * Starts the send writer's thread (its connection open, the same-text log read) before a first send or key use needs
 * it: otherwise the first request after a start waits for it.
 */
export function warmSendWriter(): void {
  sqliteWriter();
}
