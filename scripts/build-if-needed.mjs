// Builds what `npm start`, `npm run worker`, `npm run parley` and `npm test` run, when the sources changed since the
// last build (or there is none), so that they always run what is checked out:
// - the Next.js app (`next build`, into .next/);
// - the server, the worker and the CLI, each bundled into one JavaScript file (.next/parley/*.mjs, by esbuild; the
//   packages stay in node_modules). Node then starts them without compiling TypeScript on every start: the server
//   is ready in about half the time and uses ~120 MB less memory than under the tsx loader, a CLI command takes
//   about 1 s instead of 2–2.5 s. Each file has a source map beside it (NODE_OPTIONS=--enable-source-maps uses it).
// A fingerprint of the inputs of each sits beside it. `--bundles` builds the bundles alone (the worker and the CLI
// need no web app), saying what it does on stderr, so that the CLI's stdout stays its answer.
import { createHash } from "node:crypto";
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, readdirSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const bundlesOnly = process.argv.includes("--bundles");
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

function fingerprintOf(paths) {
  const files = [];
  for (const input of paths) walk(join(root, input), files);
  const hash = createHash("sha256");
  for (const file of files) hash.update(relative(root, file)).update("\0").update(readFileSync(file)).update("\0");
  return hash.digest("hex");
}

const fingerprint = fingerprintOf(inputs);
const stamp = join(root, ".next", "parley-build-fingerprint");

const upToDate = () =>
  existsSync(join(root, ".next", "BUILD_ID")) && existsSync(stamp) && readFileSync(stamp, "utf8") === fingerprint;

// The bundles: their entry points, and what they are built from (the server's fast path imports app/v3's routes).
const BUNDLES = { server: "server.ts", worker: "worker/main.ts", cli: "lib/cli/main.ts" };
const bundleDir = join(root, ".next", "parley");
const bundleInputs = [
  "server.ts",
  "worker",
  "lib",
  "app",
  "tsconfig.json",
  "package-lock.json",
  "prisma/schema.prisma",
];
const bundleFingerprint = fingerprintOf(bundleInputs);
const bundleStamp = join(bundleDir, "fingerprint");
const bundlesUpToDate = () =>
  existsSync(bundleStamp) &&
  readFileSync(bundleStamp, "utf8") === bundleFingerprint &&
  Object.keys(BUNDLES).every((name) => existsSync(join(bundleDir, `${name}.mjs`)));

/**
 * Bundles the entry points into .next/parley/. Each file is written beside its place and renamed into it, so that a
 * process starting meanwhile reads a whole file, old or new (two builds at once write the same bytes).
 */
async function buildBundles() {
  const result = await build({
    absWorkingDir: root,
    entryPoints: BUNDLES,
    outdir: bundleDir,
    outExtension: { ".js": ".mjs" },
    bundle: true,
    platform: "node",
    format: "esm",
    target: "node20",
    packages: "external",
    sourcemap: "linked",
    // Not minified: function names and line structure stay readable in stack traces and CPU profiles.
    write: false,
    logLevel: "warning",
  });
  mkdirSync(bundleDir, { recursive: true });
  for (const file of result.outputFiles) {
    const temporary = `${file.path}.${process.pid}`;
    writeFileSync(temporary, file.contents);
    renameSync(temporary, file.path);
  }
  const temporary = `${bundleStamp}.${process.pid}`;
  writeFileSync(temporary, bundleFingerprint);
  renameSync(temporary, bundleStamp);
}

async function ensureBundles() {
  if (bundlesUpToDate()) return;
  console.error("Bundling the server, the worker and the CLI (first start, or the sources changed)…");
  try {
    await buildBundles();
  } catch {
    console.error("The server, the worker or the CLI did not build; the errors are above.");
    process.exit(1);
  }
}

// Under `npm run dev` the server runs its sources and Next compiles the app on demand: the bundles alone are built.
if (bundlesOnly || process.env.PARLEY_DEV === "1" || process.env.PARLEY_DEV === "true") {
  await ensureBundles();
  process.exit(0);
}
if (upToDate()) {
  await ensureBundles();
  process.exit(0);
}

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
// After the web app: `next build` starts by emptying .next/, bundles included.
if (process.exitCode !== 1) await ensureBundles();
