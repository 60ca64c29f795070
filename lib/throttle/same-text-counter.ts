import { env } from "../env";
import type { SendWrite } from "../db/group-commit";
import { overThreshold, type SameTextEntry } from "./auto-bulk";
import { countSameTextInRedis } from "./count-same-text-redis";

// Automatic bulk's count, for the whole deployment, behind one interface with two homes, chosen here: in Redis when
// REDIS_URL is set (counted before the send's rows are built), else in the database, where the group commit counts
// in the batch's own transaction by the rule the sender handed it (autoBulkRule, through configureSendCommits) and
// marks the write bulk there. The sender calls both methods whichever counter it got.
export interface SameTextCounter {
  /** Counts the send before its rows are built: true when its text is over the threshold already. */
  countBeforeWrite(entry: SameTextEntry): Promise<boolean>;
  /**
   * Hands the write what its commit counts. `bulkResponseBody`: the answer stored for the Idempotency-Key if the
   * commit's count makes this send bulk (asked for only by the counter that counts in the commit).
   */
  countInCommit(write: SendWrite, entry: SameTextEntry, bulkResponseBody: () => string | undefined): void;
}

const redisCounter: SameTextCounter = {
  countBeforeWrite: async (entry) => overThreshold(await countSameTextInRedis(entry)),
  countInCommit: () => {},
};

const databaseCounter: SameTextCounter = {
  countBeforeWrite: () => Promise.resolve(false),
  countInCommit: (write, entry, bulkResponseBody) => {
    write.sameText = { ...entry, bulkResponseBody: bulkResponseBody() };
  },
};

export function sameTextCounter(): SameTextCounter {
  return env().REDIS_URL ? redisCounter : databaseCounter;
}
