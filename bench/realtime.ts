// npm run bench:realtime: inbound message committed → event received by a connected socket.io client
// (authenticated like a browser), at 50 inbound/s; then the same through two servers and Redis (REDIS_URL or
// 127.0.0.1:6379, PostgreSQL); then the server's memory per 1,000 idle connected sockets.
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { io, type Socket } from "socket.io-client";
import { startServer, type RunningServer } from "../tests/helpers/server";
import { createDemoAccount } from "../tests/helpers/cli";
import { portalCookie } from "../tests/helpers/portal-session";
import { createTestDatabase } from "../tests/helpers/test-database";
import { reloadEnv } from "../lib/env";
import { receiveMessage } from "../lib/messaging/receive-message";
import { disconnectDb } from "../lib/db/client";

const RATE = 50;
const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);

function connect(server: RunningServer, cookie: string): Promise<Socket> {
  const socket = io(server.baseUrl, { path: "/socket.io", transports: ["websocket"], extraHeaders: { cookie } });
  return new Promise((resolve, reject) => {
    socket.once("connect", () => resolve(socket));
    socket.once("connect_error", reject);
  });
}

function pct(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN;
}

async function latency(label: string, writer: RunningServer, reader: RunningServer): Promise<void> {
  const demo = await createDemoAccount(writer.database.url);
  const cookie = await portalCookie(reader, demo.email, demo.password);
  const socket = await connect(reader, cookie);
  const committed = new Map<string, number>();
  const seen = new Map<string, number>();
  socket.on("message.change", (changes: { message: { id: string } }[]) => {
    for (const c of changes) if (!seen.has(c.message.id)) seen.set(c.message.id, performance.now());
  });
  process.env.DATABASE_URL = writer.database.url;
  reloadEnv();
  const to = demo.numbers[0]!.replace("+", "");
  const total = RATE * SECONDS;
  const started = performance.now();
  for (let i = 0; i < total; i++) {
    const due = started + (i * 1000) / RATE;
    const wait = due - performance.now();
    if (wait > 0) await new Promise((r) => setTimeout(r, wait));
    const received = await receiveMessage({
      from: `1415555${String(1000 + (i % 50)).padStart(4, "0")}`,
      to,
      text: `bench ${i}`,
      media: [],
      numSegments: 1,
      receivedAt: new Date(),
    });
    committed.set(received!.messageId, performance.now());
  }
  const deadline = performance.now() + 5000;
  while (seen.size < committed.size && performance.now() < deadline) await new Promise((r) => setTimeout(r, 50));
  const delays = [...committed].filter(([id]) => seen.has(id)).map(([id, at]) => seen.get(id)! - at);
  console.log(
    `${label}: ${committed.size} inbound at ${RATE}/s, ${delays.length} events; p50 ${pct(delays, 50).toFixed(0)} ms, p95 ${pct(delays, 95).toFixed(0)} ms, max ${Math.max(...delays).toFixed(0)} ms`,
  );
  socket.close();
  await disconnectDb();
}

function rssKb(server: RunningServer): number {
  // The server runs in the launcher's child node process.
  const pids = execFileSync("pgrep", ["-P", String(server.process.pid)])
    .toString()
    .trim()
    .split("\n");
  const pid = pids[0]!;
  return Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))![1]);
}

async function memory(server: RunningServer): Promise<void> {
  const demo = await createDemoAccount(server.database.url);
  const cookie = await portalCookie(server, demo.email, demo.password);
  await new Promise((r) => setTimeout(r, 2000));
  // RSS moves with the collector, so sockets are added 1,000 at a time and the growth is averaged over the steps.
  const steps = [rssKb(server)];
  const sockets: Socket[] = [];
  for (let step = 0; step < 3; step++) {
    for (let i = 0; i < 1000; i += 50)
      sockets.push(...(await Promise.all(Array.from({ length: 50 }, () => connect(server, cookie)))));
    await new Promise((r) => setTimeout(r, 3000));
    steps.push(rssKb(server));
  }
  const perThousand = (steps.at(-1)! - steps[0]!) / 3 / 1024;
  console.log(
    `memory: ${sockets.length} idle sockets: RSS ${steps.map((kb) => `${kb >> 10} MB`).join(" → ")} (≈ +${perThousand.toFixed(1)} MB per 1,000)`,
  );
  for (const s of sockets) s.close();
}

const single = await startServer();
try {
  await latency("one server (SQLite)", single, single);
  await memory(single);
} finally {
  await single.stop();
}

process.env.PARLEY_TEST_DB = "postgresql";
const database = await createTestDatabase();
const env = { REDIS_URL: process.env.REDIS_URL ?? "redis://127.0.0.1:6379" };
const a = await startServer({ database, env });
const b = await startServer({ database, env });
try {
  process.env.REDIS_URL = env.REDIS_URL;
  await latency("two servers + Redis (PostgreSQL), written by a third process, read on server B", a, b);
} finally {
  await a.stop();
  await b.stop();
  await database.drop();
}
process.exit(0);
