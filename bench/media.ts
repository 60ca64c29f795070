// MMS media fitting and fetching, measured in this process.
//   npm run bench:media -- [--rounds 6] [--count 20] [--sends 7]
// Scenarios:
//   fit     a 4000×3000 JPEG and a 4000×3000 PNG (noise, several MB each) fitted to 600 KB, `--rounds` times each,
//           one at a time and then all at once through the fit slots: images fitted a second.
//   memory  `--count` media of about 20 MB each fetched at once from a media server on 127.0.0.1 and fitted to
//           600 KB: peak RSS above the starting point, against the bytes fetched (bodies go to disk and sharp reads
//           from the file, so the peak must stay far below the total).
//   latency the time an MMS adds to a send, on the real server and worker (bench/media-latency.ts; needs the
//           production build: `npm run build` first, or `node scripts/build-if-needed.mjs`).
import { spawn } from "node:child_process";
import { mkdtemp, open, rm, writeFile } from "node:fs/promises";
import { cpus, tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import sharp from "sharp";
import { fetchMedia } from "../lib/media/fetch-media";
import { fitMedia, fitSlots } from "../lib/media/fit-media";
import { describeBytes, SNIFF_BYTES, sniffMediaType } from "../lib/media/media-types";
import { buildMediaFixtures, type MediaFixture } from "../tests/helpers/media-fixtures";
import { startMediaServer } from "../tests/helpers/media-server";
import { measureSendLatency } from "./media-latency";

const { values } = parseArgs({
  options: {
    rounds: { type: "string", default: "6" },
    count: { type: "string", default: "20" },
    "fetch-and-fit": { type: "string" },
    sends: { type: "string", default: "7" },
  },
});
const rounds = Number(values.rounds);
const count = Number(values.count);
const LIMITS = { imageMaxBytes: 600 * 1024, messageMaxBytes: 5 * 1024 * 1024 };
const MB = 1024 * 1024;

setTimeout(() => {
  console.error("bench/media.ts: still running after 10 minutes; giving up");
  process.exit(2);
}, 600_000).unref();

/** The memory scenario's own process: fetches `url` `count` times at once, fits each, prints its figures. */
async function fetchAndFit(url: string): Promise<void> {
  const tempDir = await mkdtemp(path.join(tmpdir(), "parley-bench-media-fit-"));
  const baseline = process.memoryUsage().rss;
  let peak = baseline;
  const sampler = setInterval(() => {
    peak = Math.max(peak, process.memoryUsage().rss);
  }, 10);
  const started = performance.now();
  const outcomes = await Promise.all(
    Array.from({ length: count }, async (_, i) => {
      const fetched = await fetchMedia({
        url: `${url}?copy=${i}`,
        allowPrivate: true,
        maxBytes: 25 * MB,
        timeoutMs: 120_000,
        tempDir,
      });
      if (!fetched.ok) return `fetch: ${fetched.reason}`;
      const sniffed = await sniffMediaType(fetched.head);
      if (!sniffed.ok) return `sniff: ${sniffed.reason}`;
      const fitted = await fitMedia({
        path: fetched.path,
        type: sniffed.type,
        size: fetched.size,
        limits: LIMITS,
        tempDir,
      });
      await rm(fetched.path, { force: true });
      if (!fitted.ok) return `fit: ${fitted.reason}`;
      await rm(fitted.path, { force: true });
      return fitted.size <= LIMITS.imageMaxBytes ? "fitted" : `fit: ${fitted.size} bytes`;
    }),
  );
  clearInterval(sampler);
  const elapsed = (performance.now() - started) / 1000;
  await rm(tempDir, { recursive: true, force: true });
  process.stdout.write(JSON.stringify({ baseline, peak, elapsed, failures: outcomes.filter((o) => o !== "fitted") }));
}

if (values["fetch-and-fit"]) {
  await fetchAndFit(values["fetch-and-fit"]);
  process.exit(0);
}

const root = await mkdtemp(path.join(tmpdir(), "parley-bench-media-"));
const tempDir = path.join(root, "temp");
const fixtures = await buildMediaFixtures(path.join(root, "fixtures"));

async function fitOnce(fixture: MediaFixture): Promise<number> {
  const sniffed = await sniffMediaType(await readHead(fixture.path));
  if (!sniffed.ok) throw new Error(sniffed.reason);
  const result = await fitMedia({
    path: fixture.path,
    type: sniffed.type,
    size: fixture.size,
    limits: LIMITS,
    tempDir,
  });
  if (!result.ok) throw new Error(result.reason);
  await rm(result.path, { force: true });
  return result.size;
}

async function readHead(file: string): Promise<Buffer> {
  const handle = await open(file);
  try {
    const buffer = Buffer.alloc(SNIFF_BYTES);
    const { bytesRead } = await handle.read(buffer, 0, buffer.length, 0);
    return buffer.subarray(0, bytesRead);
  } finally {
    await handle.close();
  }
}

console.log(
  `bench:media on ${cpus().length} cores, node ${process.version}, sharp ${sharp.versions.sharp} ` +
    `(libvips ${sharp.versions.vips}, ${sharp.concurrency()} libvips threads), fit slots: ${fitSlots.limit}`,
);

// fit: images fitted a second.
for (const [label, fixture] of [
  ["JPEG 4000×3000", fixtures.largeJpeg],
  ["PNG 4000×3000", fixtures.largePng],
] as const) {
  await fitOnce(fixture); // warm-up (libvips caches, code paths)
  let started = performance.now();
  let lastSize = 0;
  for (let i = 0; i < rounds; i++) lastSize = await fitOnce(fixture);
  const serial = (rounds * 1000) / (performance.now() - started);
  started = performance.now();
  await Promise.all(Array.from({ length: rounds }, () => fitOnce(fixture)));
  const parallel = (rounds * 1000) / (performance.now() - started);
  console.log(
    `fit ${label} (${describeBytes(fixture.size)}) → ${describeBytes(lastSize)} JPEG: ` +
      `${serial.toFixed(2)}/s one at a time, ${parallel.toFixed(2)}/s with ${rounds} asked at once`,
  );
}

// memory: `count` big media fetched and fitted at once, in a process of its own so that its RSS is that of the
// fetches and fits alone (this one has built fixtures and fitted pictures already).
const bigName = "big-20mb.png";
const big = await sharp({
  create: {
    width: 2000,
    height: 1500,
    channels: 3,
    background: "#808080",
    noise: { type: "gaussian", mean: 128, sigma: 60 },
  },
})
  .resize(4000, 3000, { kernel: "nearest" })
  .png({ compressionLevel: 6 })
  .toBuffer();
await writeFile(path.join(fixtures.dir, bigName), big);
const server = await startMediaServer(fixtures);
const child = spawn(
  process.execPath,
  [
    ...process.execArgv,
    fileURLToPath(import.meta.url),
    "--fetch-and-fit",
    server.url(`/${bigName}`),
    "--count",
    String(count),
  ],
  { stdio: ["ignore", "pipe", "inherit"] },
);
let report = "";
child.stdout.on("data", (chunk: Buffer) => (report += chunk.toString()));
const code = await new Promise<number | null>((resolve) => child.on("close", resolve));
const figures = JSON.parse(report) as { baseline: number; peak: number; elapsed: number; failures: string[] };
const total = big.length * count;
console.log(
  `memory: ${count} × ${describeBytes(big.length)} PNG 4000×3000 (${describeBytes(total)} in all) fetched and fitted ` +
    `at once in ${figures.elapsed.toFixed(1)} s; RSS ${describeBytes(figures.baseline)} before, peak ` +
    `${describeBytes(figures.peak)}: +${describeBytes(figures.peak - figures.baseline)}, ` +
    `${(((figures.peak - figures.baseline) / total) * 100).toFixed(1)}% of the bytes fetched` +
    (figures.failures.length ? `; FAILED: ${figures.failures.join("; ")}` : "; all fitted under 600 KB"),
);

// latency: what an MMS adds to a send, end to end.
await measureSendLatency({ fixtures, media: server, perKind: Number(values.sends) });
await server.stop();
await rm(root, { recursive: true, force: true });
if (code !== 0 || figures.failures.length) process.exit(1);
