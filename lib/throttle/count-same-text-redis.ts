import { env } from "../env";
import { logger } from "../log";
import {
  AUTO_BULK_DESTINATIONS,
  AUTO_BULK_WINDOW_SECONDS,
  bucketOf,
  windowStart,
  type SameTextEntry,
} from "./auto-bulk";
import { processSingleton } from "../process-singletons";

// With REDIS_URL, automatic bulk counts in Redis (same-text-counter.ts chooses): one hash per account and text, a field per second. One round trip
// per send (a script: HINCRBY of the second, EXPIRE of the hash, and the window's sum). The sum is read only while
// the current second alone is not over the threshold, and old fields are dropped when the hash holds more seconds
// than the window, so the work per send stays bounded however long a text keeps being sent.
const SCRIPT = `
local count = redis.call('HINCRBY', KEYS[1], ARGV[1], ARGV[2])
redis.call('EXPIRE', KEYS[1], ARGV[5])
local start = tonumber(ARGV[3])
local threshold = tonumber(ARGV[4])
local fields = redis.call('HLEN', KEYS[1])
if count > threshold and fields <= tonumber(ARGV[5]) then return count end
local all = redis.call('HGETALL', KEYS[1])
local total = 0
for i = 1, #all, 2 do
  local second = tonumber(all[i])
  if second >= start then total = total + tonumber(all[i + 1]) else redis.call('HDEL', KEYS[1], all[i]) end
end
return total`;

type Client = Awaited<ReturnType<typeof connect>>;

async function connect() {
  const { createClient } = await import("redis");
  const client = createClient({ url: env().REDIS_URL });
  client.on("error", (error: unknown) => logger().warn({ err: error }, "automatic bulk: Redis error"));
  await client.connect();
  return client;
}

const holder = processSingleton(
  "sameTextRedis",
  (): { __parleySameTextRedis?: { url: string; client: Promise<Client> } } => ({}),
);

function client(): Promise<Client> {
  const url = env().REDIS_URL!;
  if (holder.__parleySameTextRedis?.url !== url) holder.__parleySameTextRedis = { url, client: connect() };
  return holder.__parleySameTextRedis.client;
}

/** Adds the entry's destinations and returns the window's total for it (at least exact up to the threshold). */
export async function countSameTextInRedis(entry: SameTextEntry): Promise<number> {
  const redis = await client();
  const result = await redis.eval(SCRIPT, {
    keys: [`parley:same-text:${entry.accountId}:${entry.textHash}`],
    arguments: [
      String(bucketOf(entry.at)),
      String(entry.destinations),
      String(windowStart(entry.at)),
      String(AUTO_BULK_DESTINATIONS),
      // The hash lives a window past its last send; more fields than this means old ones are left to drop.
      String(AUTO_BULK_WINDOW_SECONDS + 60),
    ],
  });
  return Number(result);
}
