// The application's end of the delivery callbacks in bench/compare-kannel.sh: any request (Kannel's dlr-url GET,
// Parley's webhook POST) is read to its end, answered 200 with an empty body at once, and counted per second.
//   node bench/compare-kannel/callback-receiver.mjs [--port 0] [--stats FILE]
// Prints "CALLBACK_RECEIVER_READY <port>" on stdout once listening; the counts go to FILE (JSON) every 250 ms and
// on SIGTERM.
import { renameSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import { parseArgs } from "node:util";
import { clearInterval, setInterval } from "node:timers";

const { values } = parseArgs({
  options: { port: { type: "string", default: "0" }, stats: { type: "string" } },
});

const stats = {
  startedAt: Date.now(),
  writtenAt: 0,
  callbacks: 0,
  /** Kannel's DLR type (the dlr-url's type=%d) or Parley's delivery status, and how many of each. */
  kinds: {},
  firstAt: null,
  lastAt: null,
  /** Unix second → callbacks. */
  perSecond: {},
};

const server = createServer((req, res) => {
  const chunks = [];
  req.on("data", (chunk) => chunks.push(chunk));
  req.on("end", () => {
    const now = Date.now();
    stats.callbacks++;
    stats.firstAt ??= now;
    stats.lastAt = now;
    const second = Math.floor(now / 1000);
    stats.perSecond[second] = (stats.perSecond[second] ?? 0) + 1;
    let kind = new URL(req.url ?? "/", "http://receiver").searchParams.get("type") ?? "";
    if (req.method === "POST") {
      try {
        kind = String(JSON.parse(Buffer.concat(chunks).toString("utf8")).status ?? "");
      } catch {
        kind = "unreadable";
      }
    }
    stats.kinds[kind] = (stats.kinds[kind] ?? 0) + 1;
    res.writeHead(200, { "content-length": "0" }).end();
  });
});
server.keepAliveTimeout = 65_000;

function writeStats() {
  if (!values.stats) return;
  stats.writtenAt = Date.now();
  writeFileSync(`${values.stats}.tmp`, JSON.stringify(stats));
  renameSync(`${values.stats}.tmp`, values.stats);
}

server.listen(Number(values.port), "127.0.0.1", () => {
  process.stdout.write(`CALLBACK_RECEIVER_READY ${server.address().port}\n`);
});
const timer = setInterval(writeStats, 250);
process.on("SIGTERM", () => {
  clearInterval(timer);
  writeStats();
  const { perSecond: _perSecond, ...totals } = stats;
  process.stderr.write(`callback-receiver: ${JSON.stringify(totals)}\n`);
  process.exit(0);
});
