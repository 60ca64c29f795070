// Summarises V8 CPU profiles (`node --cpu-prof`, *.cpuprofile) into self time per category, and the functions with
// the most self time. Used by bench/profile.sh; works on any .cpuprofile.
//   node bench/profile-summary.mjs [--from US] [--to US] [--label NAME] [--top 15] [--per UNITS --unit sends]
//                                  [--json FILE] PROFILE.cpuprofile …
// --from/--to keep the samples taken in that window (microseconds of the monotonic clock, the profile's own time
// base: `process.hrtime.bigint() / 1000n` in any process of the same machine), e.g. the seconds of the load only.
// --per divides the busy time by a count (sends accepted, messages delivered) and prints the CPU ms per unit.
//
// How a sample is attributed. A profile is a tree of call frames; each sample names the frame that was running (the
// leaf). Its time goes to the first category whose rule matches that frame's script URL or function name, in the
// order of RULES below. A frame no rule matches (a native function without a URL, such as a better-sqlite3
// statement's `run` or a socket's `writev`) takes the category of its nearest caller that has one; if none has,
// it is "other". So the categories are self time: a Parley function's time is its own work, and the zod, SQLite or
// JSON work it calls is counted where it happens. The V8 pseudo-frames are categories of their own: "(garbage
// collector)" → GC, "(idle)" → idle (the event loop waiting; not busy), "(program)" → V8 and native code outside
// any JavaScript frame.
// A third table gives the inclusive view: each sample (but GC and "(program)") goes to the nearest script of the
// application on its stack (a file outside node_modules: Parley's lib/, app/, server.ts, worker/), so that the time
// of Prisma, zod or Node's http under a Parley module is counted to that module.
import { readFileSync, writeFileSync } from "node:fs";
import { basename } from "node:path";
import { parseArgs } from "node:util";

/** [category, test(url, functionName)] in order; the first match wins. */
export const RULES = [
  ["GC", (url, fn) => fn === "(garbage collector)"],
  ["idle", (url, fn) => fn === "(idle)"],
  ["program (V8, native)", (url, fn) => fn === "(program)"],
  // Next.js and the React server bundle it runs (app router, request adapters, route module wrappers).
  ["framework (Next.js)", (url) => /\/node_modules\/(next|react|react-dom|@next)\/|\/\.next\//.test(url)],
  ["auth (API keys)", (url) => /\/lib\/auth\/|\/lib\/api\/(authenticate|with-api-key|admit-request)/.test(url)],
  [
    "validation (zod, numbers)",
    (url) =>
      /\/node_modules\/(zod|libphonenumber-js|libphonenumber-geo-carrier)\/|send-schema|parse-input|phone-number|\/lib\/numbers\//.test(
        url,
      ),
  ],
  ["segmenting", (url) => /\/lib\/segments\//.test(url)],
  [
    "database (SQLite, Prisma)",
    (url) =>
      /better-sqlite3|\/lib\/db\/|@prisma\/|\/node_modules\/(prisma|pg|pg-[a-z-]+)\/|\/lib\/.*-queries\./.test(url),
  ],
  // JSON.parse/JSON.stringify are native frames without a URL; the envelope and serializers build the answers.
  [
    "serialization (JSON)",
    (url, fn) =>
      (url === "" && (fn === "parse" || fn === "stringify")) ||
      /message-serializers|\/lib\/api\/(envelope|read-json)|\/lib\/http\/envelope-answers/.test(url),
  ],
  // Messages between threads and processes: worker_threads (the SQLite writer), the worker process's IPC channel.
  [
    "IPC (threads, worker process)",
    (url, fn) =>
      /^node:(internal\/worker(?!\/js_transferable)|worker_threads|internal\/child_process|child_process|v8$)/.test(
        url,
      ) ||
      fn === "postMessage" ||
      /^(serialize|deserialize|writeValue|readValue)$/.test(fn),
  ],
  ["carrier (simulator, SMPP)", (url) => /\/lib\/carriers\/|\/node_modules\/smpp\//.test(url)],
  ["webhooks (posts, signing)", (url) => /\/lib\/webhooks\/|standardwebhooks|\/node_modules\/undici\//.test(url)],
  ["logging (pino)", (url) => /\/node_modules\/(pino|pino-[a-z-]+|sonic-boom|thread-stream)\//.test(url)],
  [
    "Node http & sockets",
    (url) => /^node:(_http_|http$|https$|net$|internal\/(http|streams|stream_base|net)|stream$|dgram)/.test(url),
  ],
  ["module loading (tsx, esbuild)", (url) => /\/node_modules\/(tsx|esbuild)\/|^node:internal\/modules\//.test(url)],
  ["limits & guards", (url) => /\/lib\/(guard|throttle|opt)\/|\/lib\/api\/rate-limit/.test(url)],
  ["delivery logic", (url) => /^file:.*\/(lib\/delivery|worker)\//.test(url) && !url.includes("/node_modules/")],
  // Any other script of the application (Parley's lib/, app/, server.ts; the ceilings' handlers).
  ["app code (other)", (url) => url.startsWith("file://") && !url.includes("/node_modules/")],
  ["Node internals (other)", (url) => url.startsWith("node:")],
  ["other libraries", (url) => url.includes("/node_modules/")],
];

function categoryOf(frame) {
  for (const [name, test] of RULES) if (test(frame.url, frame.functionName)) return name;
  return null;
}

/** Self time per node id within [from, to], in µs; a sample lasts until the next one (the last until endTime). */
export function selfTimes(profile, from = -Infinity, to = Infinity) {
  const self = new Map();
  let t = profile.startTime;
  const stamps = profile.timeDeltas.map((d) => (t += d));
  let wall = 0;
  for (let i = 0; i < profile.samples.length; i++) {
    const start = stamps[i];
    const end = i + 1 < stamps.length ? stamps[i + 1] : profile.endTime;
    const clipped = Math.min(end, to) - Math.max(start, from);
    if (clipped <= 0) continue;
    self.set(profile.samples[i], (self.get(profile.samples[i]) ?? 0) + clipped);
    wall += clipped;
  }
  return { self, wall, startTime: profile.startTime, endTime: profile.endTime };
}

export function summarise(profile, { from, to, top = 15 } = {}) {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const category = new Map();
  const resolve = (id) => {
    if (category.has(id)) return category.get(id);
    const node = byId.get(id);
    let name = categoryOf(node.callFrame);
    if (name === null) name = parent.has(id) ? resolve(parent.get(id)) : "other";
    category.set(id, name);
    return name;
  };
  // The nearest script of the application on the stack (the frame itself or a caller): "whose work" a sample is.
  const owners = new Map();
  const ownerOf = (id) => {
    if (owners.has(id)) return owners.get(id);
    const { url } = byId.get(id).callFrame;
    let owner = null;
    if (url.startsWith("file://") && !/\/node_modules\/|\/\.next\//.test(url)) owner = url.replace(/^file:\/\//, "");
    else if (parent.has(id)) owner = ownerOf(parent.get(id));
    owners.set(id, owner);
    return owner;
  };
  const { self, wall } = selfTimes(profile, from, to);
  const modules = new Map();
  const categories = new Map();
  const functions = new Map();
  for (const [id, us] of self) {
    const name = resolve(id);
    categories.set(name, (categories.get(name) ?? 0) + us);
    if (name === "idle") continue;
    if (!["GC", "program (V8, native)"].includes(name)) {
      const owner = (ownerOf(id) ?? "(no application frame: Node, framework)").replace(process.cwd() + "/", "");
      modules.set(owner, (modules.get(owner) ?? 0) + us);
    }
    const { functionName, url, lineNumber, columnNumber } = byId.get(id).callFrame;
    const short = url.replace(/^file:\/\//, "").replace(/^.*\/node_modules\//, "~/");
    const where = `${short.replace(process.cwd() + "/", "")}:${lineNumber + 1}${functionName ? "" : `:${columnNumber + 1}`}`;
    const key = `${functionName || "(anonymous)"}  ${short ? where : "(native)"}`;
    const entry = functions.get(key) ?? { us: 0, category: name };
    entry.us += us;
    functions.set(key, entry);
  }
  const busy = wall - (categories.get("idle") ?? 0);
  return {
    wallMs: wall / 1000,
    busyMs: busy / 1000,
    categories: [...categories]
      .map(([name, us]) => ({ name, ms: us / 1000 }))
      .sort((a, b) => (a.name === "idle") - (b.name === "idle") || b.ms - a.ms),
    modules: [...modules]
      .map(([name, us]) => ({ name, ms: us / 1000 }))
      .sort((a, b) => b.ms - a.ms)
      .slice(0, top),
    top: [...functions]
      .map(([name, { us, category }]) => ({ name, category, ms: us / 1000 }))
      .sort((a, b) => b.ms - a.ms)
      .slice(0, top),
  };
}

function main() {
  const { values, positionals } = parseArgs({
    allowPositionals: true,
    options: {
      from: { type: "string" },
      to: { type: "string" },
      label: { type: "string" },
      top: { type: "string", default: "15" },
      per: { type: "string" },
      unit: { type: "string", default: "units" },
      json: { type: "string" },
    },
  });
  if (!positionals.length) {
    console.error("usage: node bench/profile-summary.mjs [--from US] [--to US] [--label NAME] PROFILE.cpuprofile …");
    process.exit(2);
  }
  const results = [];
  for (const file of positionals) {
    const profile = JSON.parse(readFileSync(file, "utf8"));
    const s = summarise(profile, {
      from: values.from ? Number(values.from) : undefined,
      to: values.to ? Number(values.to) : undefined,
      top: Number(values.top),
    });
    const label = values.label ?? basename(file);
    const pct = (ms, of) => (of > 0 ? ((100 * ms) / of).toFixed(1) : "–");
    console.log(`\n### ${label}\n`);
    console.log(
      `${basename(file)}: ${s.wallMs.toFixed(0)} ms sampled, ${s.busyMs.toFixed(0)} ms busy (${pct(s.busyMs, s.wallMs)} % of the window)` +
        (values.per
          ? `; ${(s.busyMs / Number(values.per)).toFixed(3)} ms busy per ${values.unit.replace(/s$/, "")} (${values.per} ${values.unit})`
          : ""),
    );
    if (s.busyMs < 0.01 * s.wallMs) {
      console.log("\n(idle: under 1 % busy in the window)");
      results.push({ file, label, ...s });
      continue;
    }
    console.log("\n| category | self ms | % of busy |\n| --- | ---: | ---: |");
    for (const c of s.categories)
      console.log(`| ${c.name} | ${c.ms.toFixed(0)} | ${c.name === "idle" ? "–" : pct(c.ms, s.busyMs)} |`);
    console.log(`\n| top functions by self time | category | self ms | % of busy |\n| --- | --- | ---: | ---: |`);
    for (const f of s.top)
      console.log(
        `| \`${f.name.replace(/\|/g, "\\|")}\` | ${f.category} | ${f.ms.toFixed(0)} | ${pct(f.ms, s.busyMs)} |`,
      );
    console.log(
      "\n| application module on the stack (its own time and what it calls; not GC) | ms | % of busy |\n| --- | ---: | ---: |",
    );
    for (const m of s.modules) console.log(`| \`${m.name}\` | ${m.ms.toFixed(0)} | ${pct(m.ms, s.busyMs)} |`);
    results.push({ file, label, ...s });
  }
  if (values.json) writeFileSync(values.json, JSON.stringify(results, null, 2));
}

if (import.meta.url === `file://${process.argv[1]}`) main();
