import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { spawn } from "node:child_process";
import { once } from "node:events";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { Agent, request, type IncomingHttpHeaders } from "node:http";
import { connect, createServer as createTcpServer, type Server as TcpServer, type Socket as TcpSocket } from "node:net";
import { io, type Socket } from "socket.io-client";
import { startServer, type RunningServer } from "../helpers/server";
import { waitUntil as waitFor } from "../helpers/wait-for";
import { createTestDatabase, testProvider, type TestDatabase } from "../helpers/test-database";
import { createTestAccount, releaseFactories, type TestAccount } from "../helpers/factories";
import { portalCookie } from "../helpers/portal-session";
import { killAllWorkers, startWorker } from "../helpers/worker-process";
import { createUser } from "../../lib/accounts/manage-accounts";
import { db } from "../../lib/db/client";

// Stopping with SIGTERM, as a process manager or a rolling deploy does: the server finishes the requests in flight,
// tells its browsers to reconnect (to another server), closes idle keep-alive connections, gives its worker's
// numbers back and exits 0 within 10 s; `npm run worker` exits within 10 s too, even when part of it cannot stop.
let database: TestDatabase;
/** The server that is stopped, running its delivery worker, and the one its browsers move to. */
let doomed: RunningServer;
let heir: RunningServer;
let account: TestAccount;
let cookie: string;
const password = "correct horse battery";

const WORKER_ENV = { WORKER_POLL_MS: "50", SIMULATOR_RECEIPT_DELAY_MS: "100", WORKER_LEASE_SECONDS: "30" };
// Several servers tell each other of changes as a deployment of several would: through Redis on SQLite, through
// PostgreSQL itself on PostgreSQL. Their clients are among what a stop has to close.
const FAN_OUT: Record<string, string> =
  testProvider() === "sqlite"
    ? { REDIS_URL: process.env.PARLEY_TEST_REDIS_URL ?? "redis://127.0.0.1:6379" }
    : { REALTIME_PG_ADAPTER: "true" };

beforeAll(async () => {
  database = await createTestDatabase();
  [doomed, heir] = await Promise.all([
    startServer({
      database,
      env: { PARLEY_WORKER: "true", LOG_LEVEL: "info", ...WORKER_ENV, ...FAN_OUT },
    }),
    startServer({ database, env: { PARLEY_WORKER: "false", ...FAN_OUT } }),
  ]);
  account = await createTestAccount(doomed, { numbers: 2 });
  await createUser({
    accountId: account.accountId,
    email: `agent-${account.accountId}@example.com`,
    password,
    role: "agent",
  });
  cookie = await portalCookie(doomed, `agent-${account.accountId}@example.com`, password);
});

afterEach(killAllWorkers);

afterAll(async () => {
  await releaseFactories();
  await heir?.stop();
  await doomed?.stop();
  await database?.drop();
});

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const waitUntil = <T>(what: string, probe: () => Promise<T | null | undefined | false>, timeoutMs: number) =>
  waitFor(what, probe, timeoutMs, 50);

/** A TCP relay standing in for a load balancer: browsers keep its address while the server behind it changes. */
async function startBalancer(port: number): Promise<{ port: number; target: number; close(): void }> {
  const sockets = new Set<TcpSocket>();
  const balancer = {
    port: 0,
    target: port,
    close: () => {
      for (const socket of sockets) socket.destroy();
      server.close();
    },
  };
  const server: TcpServer = createTcpServer((client) => {
    const upstream = connect(balancer.target, "127.0.0.1");
    for (const [a, b] of [
      [client, upstream],
      [upstream, client],
    ] as const) {
      sockets.add(a);
      a.pipe(b);
      a.on("error", () => b.destroy());
      a.on("close", () => {
        sockets.delete(a);
        b.destroy();
      });
    }
  });
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  balancer.port = (server.address() as { port: number }).port;
  return balancer;
}

interface Answer {
  status: number;
  headers: IncomingHttpHeaders;
  text: string;
}

/** One HTTP request on the given agent (a keep-alive one keeps the connection for the next request). */
function get(port: number, path: string, agent: Agent): Promise<Answer & { socket: TcpSocket }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: "127.0.0.1", port, path, agent, headers: { apikey: account.apiKey } }, (res) => {
      let text = "";
      res.setEncoding("utf8");
      res.on("data", (chunk: string) => (text += chunk));
      res.on("end", () =>
        resolve({ status: res.statusCode!, headers: res.headers, text, socket: req.socket as TcpSocket }),
      );
    });
    req.on("error", reject);
    req.end();
  });
}

/** A POST whose body arrives in two halves, the second when `finish` is called: a request the server has in flight. */
function slowPost(port: number, path: string, body: string, agent: Agent): { finish(): void; answer: Promise<Answer> } {
  const req = request({
    host: "127.0.0.1",
    port,
    path,
    method: "POST",
    agent,
    headers: { apikey: account.apiKey, "content-type": "application/json", "content-length": Buffer.byteLength(body) },
  });
  const answer = new Promise<Answer>((resolve, reject) => {
    req.on("response", (res) => {
      let text = "";
      res.setEncoding("utf8");
      res.on("data", (chunk: string) => (text += chunk));
      res.on("end", () => resolve({ status: res.statusCode!, headers: res.headers, text }));
    });
    req.on("error", reject);
  });
  const half = Math.floor(body.length / 2);
  req.write(body.slice(0, half));
  return { finish: () => req.end(body.slice(half)), answer };
}

async function send(from: string, to: string, text: string): Promise<string> {
  const res = await fetch(`${doomed.baseUrl}/v3/messages`, {
    method: "POST",
    headers: { apikey: account.apiKey, "content-type": "application/json" },
    body: JSON.stringify({ accountId: account.accountId, from, to, body: text }),
  });
  expect(res.status).toBe(200);
  return ((await res.json()) as { data: { messageInfo: { messageId: string }[] } }).data.messageInfo[0]!.messageId;
}

/**
 * The scenarios after the first want the worker under test alone on the database: the first one stops the server
 * that runs a worker in process; run on their own, they stop it here.
 */
async function onlyWorkerUnderTest(): Promise<void> {
  if (doomed.process.exitCode === null && doomed.process.signalCode === null) await doomed.stop();
}

const leaseOwners = async (numbers: string[]) =>
  (await db().phoneNumber.findMany({ where: { number: { in: numbers } }, select: { leaseOwner: true } })).map(
    (n) => n.leaseOwner,
  );

async function sentCount(ids: string[]): Promise<number> {
  return db().message.count({ where: { id: { in: ids }, partsSubmitted: { gt: 0 } } });
}

describe(`stopping with SIGTERM on ${testProvider()}`, () => {
  it(
    "the server finishes the request in flight, sends its browsers elsewhere, closes idle connections, gives its numbers back and exits 0",
    { timeout: 90_000 },
    async () => {
      const [busy] = account.numbers;
      // A browser on the live view, through the balancer.
      const balancer = await startBalancer(doomed.port);
      const browser: Socket = io(`http://127.0.0.1:${balancer.port}`, {
        path: "/socket.io",
        transports: ["websocket"],
        extraHeaders: { cookie },
        reconnectionDelay: 200,
        reconnectionDelayMax: 500,
      });
      try {
        await new Promise<void>((resolve, reject) => {
          browser.once("connect", resolve);
          browser.once("connect_error", reject);
        });
        const disconnects: { reason: string; willReconnect: boolean }[] = [];
        browser.on("disconnect", (reason) => disconnects.push({ reason, willReconnect: browser.active }));

        // A keep-alive connection, idle in its agent's pool after one request.
        const agent = new Agent({ keepAlive: true, maxSockets: 1 });
        const first = await get(doomed.port, `/v3/numbers?accountId=${account.accountId}`, agent);
        expect(first.status).toBe(200);
        let idleClosedAt = 0;
        first.socket.once("close", () => (idleClosedAt = Date.now()));

        // Work for the worker: five texts from one number, one a second; it holds the number while they go.
        const queued: string[] = [];
        for (let i = 0; i < 5; i++) queued.push(await send(busy!, "14155550150", `queued ${i}`));
        await waitUntil("the worker to hold the number and send", async () => (await sentCount(queued)) > 0, 15_000);
        expect(await leaseOwners([busy!])).not.toContain(null);

        // A request in flight on a keep-alive connection of an API client: its head and half its body are in, the rest
        // comes after the signal. (A conversational text: the browser's catch-up shows it.)
        const client = new Agent({ keepAlive: true });
        const inFlight = slowPost(
          doomed.port,
          "/v3/messages",
          JSON.stringify({
            accountId: account.accountId,
            from: account.numbers[1],
            to: "14155550151",
            body: "in flight",
            conversational: true,
          }),
          client,
        );
        await sleep(300);

        const exited = once(doomed.process, "exit") as Promise<[number | null, NodeJS.Signals | null]>;
        const signalledAt = Date.now();
        doomed.process.kill("SIGTERM");
        balancer.target = heir.port;
        await sleep(500);
        inFlight.finish();
        const answer = await inFlight.answer;
        const answeredAt = Date.now();
        const [code, signal] = await exited;
        const exitedAfter = Date.now() - signalledAt;

        // The process stopped by itself, cleanly, well within a process manager's patience.
        expect({ code, signal }, doomed.output().slice(-3000)).toEqual({ code: 0, signal: null });
        expect(exitedAfter).toBeLessThan(10_000);
        expect(doomed.output()).not.toMatch(/forcing exit/);
        // The request in flight got its answer: the message is accepted; the client is told not to reuse the
        // connection (its next request goes to another server).
        expect(answer.status, answer.text).toBe(200);
        const accepted = JSON.parse(answer.text).data.messageInfo[0];
        expect(accepted.status).toBe("accepted");
        expect(answer.headers.connection).toBe("close");
        // The idle keep-alive connection was closed by the server while it still worked on the request in flight.
        expect(idleClosedAt).toBeGreaterThan(0);
        expect(idleClosedAt).toBeLessThan(answeredAt);
        // The browser was told in a way that makes it reconnect, and it did, to the other server.
        expect(disconnects[0]).toBeDefined();
        expect(disconnects[0]!.reason).not.toBe("io server disconnect");
        expect(disconnects[0]!.willReconnect).toBe(true);
        await waitUntil("the browser to reconnect to the other server", async () => browser.connected, 10_000);
        const caughtUp = (await browser.timeout(5000).emitWithAck("catch-up", { after: 0 })) as {
          changes: { message: { id: string } }[];
        };
        expect(caughtUp.changes.map((c) => c.message.id)).toContain(accepted.messageId);
        console.log(
          `[shutdown] server exited ${code} ${exitedAfter} ms after SIGTERM; the browser was told "${disconnects[0]!.reason}" ` +
            `and reconnected to the other server`,
        );

        // Its numbers were given back on the way out: a new worker sends from them at once, not after the lease.
        expect(await leaseOwners(account.numbers)).toEqual([null, null]);
        const before = await sentCount(queued);
        expect(before).toBeLessThan(queued.length);
        const worker = await startWorker(database.url, WORKER_ENV);
        const readyAt = Date.now();
        await waitUntil(
          "the new worker to send from the number",
          async () => (await sentCount(queued)) > before,
          10_000,
        );
        expect(Date.now() - readyAt).toBeLessThan(5_000);
        await worker.stop();
        agent.destroy();
        client.destroy();
      } finally {
        browser.close();
        balancer.close();
      }
    },
  );

  it(
    "a worker whose webhook receiver never answers gives its numbers back and exits within 10 s, saying it forced the exit",
    { timeout: 60_000 },
    async () => {
      await onlyWorkerUnderTest();
      // A receiver that takes the connection and never answers; the worker would wait 30 s for it.
      const sockets = new Set<TcpSocket>();
      const receiver = createTcpServer((socket) => sockets.add(socket));
      receiver.listen(0, "127.0.0.1");
      await once(receiver, "listening");
      const port = (receiver.address() as { port: number }).port;
      const other = await createTestAccount(heir, { numbers: 1 });
      await db().webhookEndpoint.create({ data: { accountId: other.accountId, url: `http://127.0.0.1:${port}/hook` } });
      try {
        const worker = await startWorker(database.url, {
          ...WORKER_ENV,
          LOG_LEVEL: "info",
          WEBHOOK_ALLOW_PRIVATE: "true",
          WEBHOOK_TIMEOUT_SECONDS: "30",
        });
        for (let i = 0; i < 4; i++) {
          const res = await fetch(`${heir.baseUrl}/v3/messages`, {
            method: "POST",
            headers: { apikey: other.apiKey, "content-type": "application/json" },
            body: JSON.stringify({
              accountId: other.accountId,
              from: other.numbers[0],
              to: "14155550152",
              body: `w${i}`,
            }),
          });
          expect(res.status).toBe(200);
        }
        await waitUntil("a webhook post to hang", async () => sockets.size > 0, 15_000);
        await waitUntil(
          "the worker to hold the number",
          async () => !(await leaseOwners(other.numbers)).includes(null),
          10_000,
        );

        const signalledAt = Date.now();
        worker.signalWorker("SIGTERM");
        const exit = await worker.exited;
        const exitedAfter = Date.now() - signalledAt;
        expect(exitedAfter, worker.output().slice(-3000)).toBeLessThan(11_000);
        // Not a clean stop: it says so, and what it was still waiting for.
        expect(exit.code).toBe(1);
        expect(worker.output()).toMatch(/forcing exit/);
        expect(worker.output()).toMatch(/webhooks/);
        // The worker part stopped in time and gave the number back.
        expect(await leaseOwners(other.numbers)).toEqual([null]);
      } finally {
        for (const socket of sockets) socket.destroy();
        receiver.close();
      }
    },
  );

  it(
    "`npm run worker` signalled through npm, as a process manager signals the process it started, stops cleanly",
    { timeout: 60_000 },
    async () => {
      await onlyWorkerUnderTest();
      const other = await createTestAccount(heir, { numbers: 1 });
      for (let i = 0; i < 4; i++) {
        const res = await fetch(`${heir.baseUrl}/v3/messages`, {
          method: "POST",
          headers: { apikey: other.apiKey, "content-type": "application/json" },
          body: JSON.stringify({
            accountId: other.accountId,
            from: other.numbers[0],
            to: "14155550153",
            body: `n${i}`,
          }),
        });
        expect(res.status).toBe(200);
      }
      const npm = spawn("npm", ["run", "--silent", "worker"], {
        cwd: join(import.meta.dirname, "..", ".."),
        env: {
          ...process.env,
          ...WORKER_ENV,
          NODE_ENV: "production",
          DATABASE_URL: database.url,
          LOG_LEVEL: "info",
          PARLEY_READY_FD: "stdout",
        },
        stdio: ["ignore", "pipe", "pipe"],
      });
      let output = "";
      npm.stderr!.on("data", (chunk: Buffer) => (output += chunk.toString()));
      const exited = once(npm, "exit") as Promise<[number | null, NodeJS.Signals | null]>;
      // The worker's own pid is in the id it announces (host:pid:hex).
      const workerPid = await new Promise<number>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`the worker did not start:\n${output}`)), 45_000);
        createInterface({ input: npm.stdout! }).on("line", (line) => {
          output += line + "\n";
          const ready = /^PARLEY_WORKER_READY \S+:(\d+):\w+$/.exec(line);
          if (ready) {
            clearTimeout(timer);
            resolve(Number(ready[1]));
          }
        });
      });
      const alive = () => existsSync(`/proc/${workerPid}`);
      try {
        await waitUntil(
          "the worker to hold the number",
          async () => !(await leaseOwners(other.numbers)).includes(null),
          10_000,
        );
        npm.kill("SIGTERM");
        const [code] = await exited;
        await waitUntil("the worker process to end", async () => !alive(), 10_000).catch(() => undefined);
        expect(alive(), "the worker outlived npm").toBe(false);
        expect(code, output.slice(-3000)).toBe(0);
        expect(output).toMatch(/"msg":"stopped"/);
        expect(await leaseOwners(other.numbers), output).toEqual([null]);
      } finally {
        if (alive()) process.kill(workerPid, "SIGKILL");
      }
    },
  );
});
