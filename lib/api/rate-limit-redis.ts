import { env } from "../env";
import { logger } from "../log";
import type { Admission, RateLimit } from "./admit-request";
import { processSingleton } from "../process-singletons";

// With REDIS_URL the request rate limit counts in Redis, for every server of the deployment: one key per API key
// holding its bucket's time (the same algorithm as in memory), read and moved on in one script, on Redis's clock
// so that servers' clocks need not agree. A limiter must not stop the API: while Redis is unreachable or slow,
// requests are let through (and that is logged).
const SCRIPT = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + tonumber(t[2]) / 1000
local interval = tonumber(ARGV[1])
local tolerance = tonumber(ARGV[2])
local tat = tonumber(redis.call('GET', KEYS[1])) or now
if tat < now then tat = now end
local wait = tat - tolerance - now
if wait > 0 then return {0, math.ceil(wait)} end
tat = tat + interval
redis.call('SET', KEYS[1], string.format('%.3f', tat), 'PX', math.ceil(tat - now) + 1000)
return {1, 0}`;

const COMMAND_TIMEOUT_MS = 1000;

type Client = ReturnType<typeof import("redis").createClient>;

const holder = processSingleton(
  "rateLimitRedis",
  (): {
    __parleyRateLimitRedis?: { url: string; client: Promise<Client> };
    __parleyRateLimitRedisWarned?: number;
  } => ({}),
);

function warn(error: unknown): void {
  // Once a minute at most: every request would otherwise log it.
  const now = Date.now();
  if (now - (holder.__parleyRateLimitRedisWarned ?? 0) < 60_000) return;
  holder.__parleyRateLimitRedisWarned = now;
  logger().warn({ err: error }, "request rate limit: Redis unavailable, requests are not limited meanwhile");
}

async function connect(url: string): Promise<Client> {
  const { createClient } = await import("redis");
  // No offline queue: a command while disconnected fails at once instead of waiting for the reconnection.
  const client = createClient({ url, disableOfflineQueue: true });
  client.on("error", warn);
  // The first request waits for the connection (a second at most); later ones never wait for a reconnection.
  const connected = client.connect().catch(warn);
  await Promise.race([connected, new Promise((resolve) => setTimeout(resolve, COMMAND_TIMEOUT_MS).unref())]);
  return client;
}

function client(): Promise<Client> {
  const url = env().REDIS_URL!;
  if (holder.__parleyRateLimitRedis?.url !== url) holder.__parleyRateLimitRedis = { url, client: connect(url) };
  return holder.__parleyRateLimitRedis.client;
}

export async function admitInRedis(apiKeyId: string, limit: RateLimit): Promise<Admission> {
  const interval = 1000 / limit.perSecond;
  const redis = await client();
  if (!redis.isReady) return { allowed: true, tat: 0 };
  let timer: NodeJS.Timeout | undefined;
  try {
    const reply = (await Promise.race([
      redis.eval(SCRIPT, {
        keys: [`parley:rate:${apiKeyId}`],
        arguments: [String(interval), String((limit.burst - 1) * interval)],
      }),
      new Promise((_, reject) => {
        timer = setTimeout(() => reject(new Error(`no answer within ${COMMAND_TIMEOUT_MS} ms`)), COMMAND_TIMEOUT_MS);
      }),
    ])) as [number, number];
    return reply[0] === 1 ? { allowed: true, tat: 0 } : { allowed: false, waitMs: Number(reply[1]) };
  } catch (error) {
    warn(error);
    return { allowed: true, tat: 0 };
  } finally {
    clearTimeout(timer);
  }
}
