import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { once } from "node:events";
import { readdirSync, readFileSync } from "node:fs";
import { createServer } from "node:net";
import { startServer, type RunningServer } from "../helpers/server";
import { createTestDatabase, type TestDatabase } from "../helpers/test-database";
import { call, createTestAccount, releaseFactories, type TestAccount } from "../helpers/factories";
import { has, waitForSdrs, waitUntil } from "../helpers/wait-for";
import { parsePrometheusText, sampleValue } from "../helpers/prometheus-text";
import { io, type Socket } from "socket.io-client";
import { db } from "../../lib/db/client";
import { createUser } from "../../lib/accounts/manage-accounts";
import { portalCookie } from "../helpers/portal-session";

// The delivery worker of a server started as `npm start` starts it (PARLEY_WORKER=true): a process of its own, so
// that delivery never holds up the HTTP event loop. The server watches it: it serves its metrics, starts it again
// when it dies, and the worker stops by itself, giving its numbers back, when the server is gone.
let database: TestDatabase;
let server: RunningServer;
let account: TestAccount;

beforeAll(async () => {
  database = await createTestDatabase();
  server = await startServer({
    database,
    env: {
      PARLEY_WORKER: "true",
      LOG_LEVEL: "info",
      WORKER_POLL_MS: "50",
      SIMULATOR_RECEIPT_DELAY_MS: "100",
      // A worker killed outright holds its numbers until its lease runs out: the shortest allowed.
      WORKER_LEASE_SECONDS: "5",
      // The live view's poll, as slow as allowed: what the worker writes must reach it sooner, by its wake-up.
      REALTIME_POLL_MS: "5000",
    },
  });
  account = await createTestAccount(server, { numbers: 2, rateLimitPerSecond: 50 });
});

afterAll(async () => {
  await releaseFactories();
  await server?.stop();
  await database?.drop();
});

/** The pids of the worker processes the server said it started, in order. */
function workerPids(): number[] {
  const pids: number[] = [];
  for (const line of server.output().split("\n")) {
    if (!line.includes('"delivery worker process ready"')) continue;
    pids.push((JSON.parse(line) as { pid: number }).pid);
  }
  return pids;
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Worker processes whose server (PARLEY_WORKER_OF_SERVER in their environment) is no longer there. */
function orphanedWorkers(): number[] {
  const orphans: number[] = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    let environ: string;
    try {
      environ = readFileSync(`/proc/${entry}/environ`, "latin1");
    } catch {
      continue;
    }
    const of = /(?:^|\0)PARLEY_WORKER_OF_SERVER=(\d+)/.exec(environ)?.[1];
    if (of && !alive(Number(of))) orphans.push(Number(entry));
  }
  return orphans;
}

/** Waits for `probe`; a failure shows the end of the server's output. */
const until = <T>(what: string, probe: () => T | Promise<T>, timeoutMs = 15_000) =>
  waitUntil(what, probe, timeoutMs, 100, () => server.output().slice(-2000));

async function send(from: string, to: string, body: string): Promise<string> {
  const res = await call(server, "POST", "/v3/messages", {
    headers: account.headers,
    body: { accountId: account.accountId, from, to, body },
  });
  expect(res.status, res.text).toBe(200);
  return res.json.data.messageInfo[0].messageId as string;
}

describe("the server's delivery worker process", () => {
  it("is a process of its own whose series the server's /metrics serves, labelled by process, moving with traffic", async () => {
    const [pid] = workerPids();
    expect(pid, "the server names its worker's pid").toBeDefined();
    expect(pid).not.toBe(server.process.pid);
    expect(alive(pid!)).toBe(true);

    const ids = [];
    for (let i = 0; i < 3; i++) ids.push(await send(account.numbers[0]!, `1415555${String(1200 + i)}`, `hello ${i}`));
    for (const id of ids) await waitForSdrs(server, account, id, has("dlr_received"));

    const scrape = async () => {
      const response = await fetch(`${server.baseUrl}/metrics`);
      expect(response.status).toBe(200);
      return parsePrometheusText(await response.text());
    };
    const families = await until("the worker's receipts to be counted", async () => {
      const read = await scrape();
      const delivered = sampleValue(read, "parley_receipts_total", { process: "worker", status: "delivered" }) ?? 0;
      return delivered >= 3 ? read : null;
    });
    // Sends are accepted by the server; parts go out and receipts come back in the worker.
    expect(sampleValue(families, "parley_messages_accepted_total", { process: "server" })).toBeGreaterThanOrEqual(3);
    expect(sampleValue(families, "parley_segments_submitted_total", { process: "worker" })).toBeGreaterThanOrEqual(3);
    expect(sampleValue(families, "parley_segments_submitted_total", { process: "server" })).toBe(0);
    // Each process's own Node figures, apart: the server's event-loop lag is not averaged with the worker's.
    const lag = families
      .get("nodejs_eventloop_lag_seconds")!
      .samples.map((s) => s.labels.process)
      .sort();
    expect(lag).toEqual(["server", "worker"]);
    expect(sampleValue(families, "parley_carrier_connection_state", { process: "worker", state: "connected" })).toBe(1);
  });

  it("wakes the server's live view when it records a delivery, without waiting for the view's poll", async () => {
    const email = `agent-${account.accountId}@example.com`;
    await createUser({ accountId: account.accountId, email, password: "correct horse battery", role: "agent" });
    const cookie = await portalCookie(server, email, "correct horse battery");
    const browser: Socket = io(server.baseUrl, {
      path: "/socket.io",
      transports: ["websocket"],
      extraHeaders: { cookie },
    });
    try {
      await new Promise<void>((resolve, reject) => {
        browser.once("connect", resolve);
        browser.once("connect_error", reject);
      });
      const seen = new Map<string, number>();
      browser.on("message.change", (changes: { message: { id: string; status: string } }[]) => {
        for (const { message } of changes)
          if (message.status === "delivered" && !seen.has(message.id)) seen.set(message.id, Date.now());
      });
      // Five in a row: each delivered within a few hundred milliseconds of its send (receipts after 100 ms), and
      // each pushed to the browser well inside the 5 s poll (by the poll alone, half of them would come later).
      for (let i = 0; i < 5; i++) {
        const res = await call(server, "POST", "/v3/messages", {
          headers: account.headers,
          body: {
            accountId: account.accountId,
            from: account.numbers[0],
            to: `1415555130${i}`,
            body: `live ${i}`,
            conversational: true,
          },
        });
        expect(res.status, res.text).toBe(200);
        const id = res.json.data.messageInfo[0].messageId as string;
        const sentAt = Date.now();
        await until(`the browser to see ${id} delivered`, () => seen.has(id), 10_000);
        expect(seen.get(id)! - sentAt, "pushed long before the next poll").toBeLessThan(2_500);
      }
    } finally {
      browser.close();
    }
  });

  it("is started again when it dies, and delivery goes on", async () => {
    const [first] = workerPids();
    process.kill(first!, "SIGKILL");
    await until("the server to start its worker again", () => workerPids().length === 2);
    expect(server.output()).toMatch(/the delivery worker process exited; starting it again/);
    const [, second] = workerPids();
    expect(second).not.toBe(first);
    expect(alive(second!)).toBe(true);
    // The killed worker's numbers come free when its lease runs out; the new one then sends from them.
    const id = await send(account.numbers[0]!, "14155551299", "after the restart");
    await waitForSdrs(server, account, id, has("dlr_received"), 20_000);
  });

  it("does not outlive a server whose start failed while it was starting", async () => {
    // The port is taken: the server fails once Next is prepared, while its worker has started or still starts.
    const taken = createServer().listen(0, "127.0.0.1");
    await once(taken, "listening");
    const port = (taken.address() as { port: number }).port;
    try {
      await expect(startServer({ database, env: { PARLEY_WORKER: "true", PORT: String(port) } })).rejects.toThrow(
        new RegExp(`port ${port} on 127.0.0.1 is in use by another program`),
      );
      await until("the failed server's worker to stop", () => orphanedWorkers().length === 0, 15_000);
    } finally {
      taken.close();
    }
  }, 120_000);

  it("stops by itself and gives its numbers back when the server is killed outright", async () => {
    const pid = workerPids().at(-1)!;
    const from = account.numbers[1]!;
    // Work that keeps the number held: five texts leave one a second.
    const ids = [];
    for (let i = 0; i < 5; i++) ids.push(await send(from, "14155551300", `queued ${i}`));
    await until("the worker to hold the number", async () => {
      const row = await db().phoneNumber.findUnique({ where: { number: from }, select: { leaseOwner: true } });
      return row?.leaseOwner;
    });

    const exited = once(server.process, "exit");
    server.process.kill("SIGKILL");
    await exited;
    await until("the worker process to exit", () => !alive(pid), 10_000);
    const row = await db().phoneNumber.findUnique({ where: { number: from }, select: { leaseOwner: true } });
    expect(row?.leaseOwner, "the worker gave its number back on the way out").toBeNull();
    expect(server.output()).toMatch(/delivery worker stopped/);
  });
});
