import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServer, type RunningServer } from "../helpers/server";
import { createTestDatabase, type TestDatabase } from "../helpers/test-database";
import {
  call,
  createKey,
  createTestAccount,
  releaseFactories,
  type ApiResponse,
  type TestAccount,
} from "../helpers/factories";
import { parsePrometheusText, sampleValue } from "../helpers/prometheus-text";

// The per-key request rate limit of /v3: off unless API_RATE_LIMIT_PER_SECOND is set; then each API key may make
// a burst of requests at once and then the rate, and a request over it is 429 TooManyRequests with Retry-After.
// Counted in each server's memory, or across servers in Redis with REDIS_URL. Four real servers on one database:
// one without the setting, one counting in memory, two sharing Redis.
const REDIS_URL = process.env.PARLEY_TEST_REDIS_URL ?? "redis://127.0.0.1:6379";
// One request every 2 s after a burst of 5: wide enough that a loaded machine does not refill a bucket mid-burst.
const LIMIT = { API_RATE_LIMIT_PER_SECOND: "0.5", API_RATE_LIMIT_BURST: "5" };

let database: TestDatabase;
let unlimited: RunningServer;
let limited: RunningServer;
let redisA: RunningServer;
let redisB: RunningServer;
let account: TestAccount;

beforeAll(async () => {
  database = await createTestDatabase();
  [unlimited, limited, redisA, redisB] = await Promise.all([
    startServer({ database }),
    startServer({ database, env: LIMIT }),
    startServer({ database, env: { ...LIMIT, REDIS_URL } }),
    startServer({ database, env: { ...LIMIT, REDIS_URL } }),
  ]);
  account = await createTestAccount(unlimited, { numbers: 1 });
});

afterAll(async () => {
  await releaseFactories();
  await Promise.all([unlimited, limited, redisA, redisB].map((server) => server?.stop()));
  await database?.drop();
});

const list = (server: RunningServer, key: string) =>
  call(server, "GET", `/v3/messages?accountId=${account.accountId}&count=1`, { headers: { apikey: key } });

/** A key of the test account that nothing has counted yet. */
const freshKey = async () => (await createKey(unlimited, account.accountId)).key;

const statuses = (responses: ApiResponse[]) => responses.map((r) => r.status).sort();

describe("per-key request rate limit", () => {
  it("is off by default: a burst of 50 requests is answered in full", async () => {
    const responses = await Promise.all(Array.from({ length: 50 }, () => list(unlimited, account.apiKey)));
    expect(statuses(responses)).toEqual(Array(50).fill(200));
  });

  it("answers the request after the burst 429 TooManyRequests, with Retry-After, until the key's wait is over", async () => {
    const key = await freshKey();
    const responses = await Promise.all(Array.from({ length: 6 }, () => list(limited, key)));
    expect(statuses(responses)).toEqual([200, 200, 200, 200, 200, 429]);
    const refused = responses.find((r) => r.status === 429)!;
    expect(refused.json).toEqual({
      status: "TooManyRequests",
      statusCode: 429,
      statusMessage: "Too many requests",
      statusUri: `${limited.baseUrl}/docs#error-TooManyRequests`,
      data: {
        error: "TooManyRequests",
        error_message: expect.stringMatching(
          /^at most 0\.5 requests a second per API key \(5 at once\); retry after [12] s$/,
        ),
        apiVersion: "v3",
      },
    });
    expect(refused.headers.get("content-type")).toBe("application/json; charset=utf-8");
    expect(refused.headers.get("x-request-id")).toBeTruthy();
    const retryAfter = Number(refused.headers.get("retry-after"));
    expect([1, 2]).toContain(retryAfter);

    // Asking again at once is refused again; a refused request does not count, so the wait it was told is enough.
    expect((await list(limited, key)).status).toBe(429);
    await new Promise((resolve) => setTimeout(resolve, retryAfter * 1000));
    expect((await list(limited, key)).status).toBe(200);
    expect((await list(limited, key)).status).toBe(429);
  });

  it("counts each key alone, also two keys of one account", async () => {
    const [first, second] = [await freshKey(), await freshKey()];
    await Promise.all(Array.from({ length: 5 }, () => list(limited, first)));
    expect((await list(limited, first)).status).toBe(429);
    const others = await Promise.all(Array.from({ length: 5 }, () => list(limited, second)));
    expect(statuses(others)).toEqual(Array(5).fill(200));
    expect((await list(limited, second)).status).toBe(429);
  });

  it("is checked after the credentials: a bad key is 401, not 429", async () => {
    const key = await freshKey();
    await Promise.all(Array.from({ length: 6 }, () => list(limited, key)));
    const res = await list(limited, "pk_00000000000000000000000000000000");
    expect(res.status).toBe(401);
    expect(res.json.status).toBe("Unauthorized");
  });

  it("shows in the server's metrics", async () => {
    const key = await freshKey();
    const before = parsePrometheusText(await (await fetch(`${limited.baseUrl}/metrics`)).text());
    const responses = await Promise.all(Array.from({ length: 8 }, () => list(limited, key)));
    const after = parsePrometheusText(await (await fetch(`${limited.baseUrl}/metrics`)).text());
    const counted =
      sampleValue(after, "parley_api_rate_limited_total")! - sampleValue(before, "parley_api_rate_limited_total")!;
    expect(counted).toBe(responses.filter((r) => r.status === 429).length);
    expect(counted).toBe(3);
  });

  it("with REDIS_URL counts a key across servers", async () => {
    const key = await freshKey();
    const responses = await Promise.all([
      ...Array.from({ length: 3 }, () => list(redisA, key)),
      ...Array.from({ length: 3 }, () => list(redisB, key)),
    ]);
    expect(statuses(responses)).toEqual([200, 200, 200, 200, 200, 429]);
    for (const server of [redisA, redisB]) expect((await list(server, key)).status).toBe(429);
    const refused = responses.find((r) => r.status === 429)!;
    expect(refused.json.status).toBe("TooManyRequests");
    expect([1, 2]).toContain(Number(refused.headers.get("retry-after")));
  });
});
