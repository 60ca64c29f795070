// Builds the Next.js app when the sources changed since the last build (or there is none), so that
// `npm start` and `npm test` always serve what is checked out. A fingerprint of the inputs sits in .next/.
import { createHash } from "node:crypto";
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const inputs = [
  "app",
  "components",
  "lib",
  "public",
  "next.config.js",
  "instrumentation-client.ts",
  "postcss.config.mjs",
  "tsconfig.json",
  "package-lock.json",
  "prisma/schema.prisma",
];
const skip = new Set(["node_modules", ".next", "generated"]);

function walk(path, files) {
  if (!existsSync(path)) return;
  const stat = statSync(path);
  if (stat.isDirectory()) {
    for (const name of readdirSync(path).sort()) if (!skip.has(name)) walk(join(path, name), files);
  } else files.push(path);
}

const files = [];
for (const input of inputs) walk(join(root, input), files);
const hash = createHash("sha256");
for (const file of files) hash.update(relative(root, file)).update("\0").update(readFileSync(file)).update("\0");
const fingerprint = hash.digest("hex");
const stamp = join(root, ".next", "parley-build-fingerprint");

const upToDate = () =>
  existsSync(join(root, ".next", "BUILD_ID")) && existsSync(stamp) && readFileSync(stamp, "utf8") === fingerprint;

if (process.env.PARLEY_DEV === "1" || process.env.PARLEY_DEV === "true") process.exit(0);
if (upToDate()) process.exit(0);

// One build at a time (several test runs or starts may ask together); the others wait and reuse it.
const lock = join(root, ".next-build.lock");
const sleep = (ms) => Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
const holderAlive = () => {
  try {
    process.kill(Number(readFileSync(join(lock, "pid"), "utf8")), 0);
    return true;
  } catch (error) {
    // No pid file yet (its holder is writing it) counts as alive for a moment; a dead pid does not.
    const age = Date.now() - (statSync(lock, { throwIfNoEntry: false })?.mtimeMs ?? 0);
    return error.code === "EPERM" || (error.code === "ENOENT" && age < 5000);
  }
};
for (;;) {
  try {
    mkdirSync(lock);
    writeFileSync(join(lock, "pid"), String(process.pid));
    break;
  } catch {
    // A build that was killed leaves its lock behind: take it over once its process is gone.
    if (!holderAlive()) rmSync(lock, { recursive: true, force: true });
    else sleep(500);
  }
}
try {
  if (!upToDate()) {
    console.log("Building the web app (first start, or the sources changed)…");
    try {
      execFileSync(join(root, "node_modules/.bin/next"), ["build"], {
        cwd: root,
        stdio: "inherit",
        env: { ...process.env, NEXT_TELEMETRY_DISABLED: "1" },
      });
    } catch {
      console.error("The web app did not build; the errors are above.");
      process.exitCode = 1;
    }
    if (process.exitCode !== 1) writeFileSync(stamp, fingerprint);
  }
} finally {
  rmSync(lock, { recursive: true, force: true });
}
