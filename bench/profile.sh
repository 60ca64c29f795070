#!/usr/bin/env bash
# Where the time goes: CPU profiles (`node --cpu-prof`) of Parley sending under load and delivering what it
# accepted, and of the two ceilings driven the same way, each summarised into self time per category
# (bench/profile-summary.mjs) beside the load's figures:
#   1. baseline: bench/baseline-server.mjs, bare Node `http` parsing the JSON body and answering JSON;
#   2. next:     a stock Next.js route handler (`POST /echo`, the same answer) in a one-route app built in the
#                temporary directory against this checkout's node_modules (webpack build), under `next start`;
#   3. parley:   the server as `npm start` runs it (production build, SQLite in the temporary directory, the delivery
#                worker and webhook dispatcher in the worker process it starts, the simulator carrier with
#                receipts after 1 s, the account's webhook on bench/compare-kannel/callback-receiver.mjs), with
#                POST /v3/messages, one destination, a text of its own per request and `from` rotating over
#                --numbers provisioned numbers (the requests of `npm run bench:send -- --worker`).
# The load is autocannon (the driver of bench/send.ts): a warm-up of 2,000 requests, then --duration seconds at
# --connections (saturation) or at --rate requests a second. The server runs under `node --cpu-prof`; the worker
# process inherits the flags (lib/boot/worker-child.ts passes process.execArgv on), and every worker thread of
# either writes a profile of its own. Each summary keeps the samples of the measured load only (the worker's: from
# the start of the load until everything it accepted is delivered and its webhooks posted, or --drain-cap).
# CPU ms per request counts every thread of the processes (the kernel's /proc/<pid>/stat), not the profiles.
#
#   npm run bench:profile -- [--duration 20] [--connections 50] [--rate N] [--numbers 3000] [--drain-cap 90]
#                             [--only baseline,next,parley] [--out DIR] [--keep]
#
# The .cpuprofile files and summary.md go to --out (default bench/results/profiles/<date-time>, which git ignores);
# open one as a flame graph in Chrome DevTools (Performance panel, "Load profile") or at https://www.speedscope.app.
# Everything listens on 127.0.0.1 on free ports; every process started is stopped by its pid (SIGTERM, so that the
# profiles are written) and the temporary directory removed (--keep leaves it: logs, database, the Next.js app).
set -euo pipefail

cd "$(dirname "$0")/.."
ROOT=$PWD

DURATION=20
CONNECTIONS=50
RATE=""
NUMBERS=3000
DRAIN_CAP=90
ONLY=baseline,next,parley
OUT=""
KEEP=""
FROM_PREFIX=1212200 # the provisioned numbers: +1 212 200 0000 …

usage() { awk 'NR > 1 && !/^#/ { exit } NR > 1 { sub(/^# ?/, ""); print }' "$0"; }
while (($#)); do
  case $1 in
    --duration) DURATION=$2; shift 2 ;;
    --connections) CONNECTIONS=$2; shift 2 ;;
    --rate) RATE=$2; shift 2 ;;
    --numbers) NUMBERS=$2; shift 2 ;;
    --drain-cap) DRAIN_CAP=$2; shift 2 ;;
    --only) ONLY=$2; shift 2 ;;
    --out) OUT=$2; shift 2 ;;
    --keep) KEEP=1; shift ;;
    -h | --help) usage; exit 0 ;;
    *) echo "profile: unknown option $1" >&2; usage >&2; exit 2 ;;
  esac
done
for value in "$DURATION" "$CONNECTIONS" "$NUMBERS" "$DRAIN_CAP" ${RATE:+"$RATE"}; do
  [[ $value =~ ^[1-9][0-9]*$ ]] || { echo "profile: \"$value\" is not a positive whole number" >&2; exit 2; }
done
((NUMBERS <= 10000)) || { echo "profile: --numbers is at most 10000" >&2; exit 2; }
wants() { [[ ,$ONLY, == *,$1,* ]]; }

OUT=${OUT:-$ROOT/bench/results/profiles/$(date +%Y%m%d-%H%M%S)}
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)
SUMMARY=$OUT/summary.md
LOAD_LABEL=$([[ -n $RATE ]] && echo "$RATE req/s offered" || echo "saturation, $CONNECTIONS connections")

log() { printf '%s profile: %s\n' "$(date +%H:%M:%S)" "$*" >&2; }
say() { printf '%s\n' "$*" | tee -a "$SUMMARY"; }

# --- processes ----------------------------------------------------------------------------------------------------

WORK=$(mktemp -d "${TMPDIR:-/tmp}/parley-profile.XXXXXX")
PIDS=()
LAST_PID=""

stop_pid() {
  local pid=$1 i
  kill -0 "$pid" 2>/dev/null || return 0
  kill -TERM "$pid" 2>/dev/null || true
  for ((i = 0; i < 200; i++)); do
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.1
  done
  kill -0 "$pid" 2>/dev/null && { log "pid $pid did not stop within 20 s; killed (no profile)"; kill -KILL "$pid"; }
  wait "$pid" 2>/dev/null || true
  local kept=() p
  for p in "${PIDS[@]}"; do [[ $p == "$pid" ]] || kept+=("$p"); done
  PIDS=("${kept[@]}")
}

cleanup() {
  local status=$?
  local i out
  for ((i = ${#PIDS[@]} - 1; i >= 0; i--)); do stop_pid "${PIDS[i]}"; done
  if ((status != 0 && status != 130)); then
    for out in "$WORK"/*.out; do
      [[ -s $out ]] && { echo "--- ${out##*/}"; tail -n 15 "$out"; } >&2
    done
  fi
  if [[ -n $KEEP ]]; then log "kept $WORK"; else rm -rf "$WORK"; fi
  exit "$status"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# start NAME COMMAND…: in the background, output to $WORK/NAME.out; its pid in LAST_PID.
start() {
  local name=$1
  shift
  "$@" >"$WORK/$name.out" 2>&1 &
  LAST_PID=$!
  PIDS+=("$LAST_PID")
}

# wait_line SECONDS NAME REGEX: prints the first line of $WORK/NAME.out matching REGEX, once it is there.
wait_line() {
  local deadline=$(($(date +%s) + $1)) line
  until line=$(grep -m1 -E "$3" "$WORK/$2.out" 2>/dev/null); do
    (($(date +%s) < deadline)) || { log "$2 did not say /$3/ within $1 s"; return 1; }
    sleep 0.2
  done
  printf '%s\n' "$line"
}

free_port() { node "$ROOT/bench/compare-kannel/measure.mjs" ports 1; }

# CPU time of the processes so far, every thread, in ms (utime + stime of /proc/<pid>/stat).
cpu_ms() {
  local total=0 pid fields
  for pid in "$@"; do
    fields=$(sed 's/^.*) //' "/proc/$pid/stat" 2>/dev/null) || continue
    # After the command name: field 3 is the state, so utime and stime (14 and 15) are the 12th and 13th here.
    total=$((total + $(awk '{ print $12 + $13 }' <<<"$fields")))
  done
  echo $((total * 1000 / $(getconf CLK_TCK)))
}

# --- the load: autocannon, as bench/send.ts drives it -------------------------------------------------------------

cat >"$WORK/load.mjs" <<'EOF'
// node load.mjs URL MODE: MODE "echo" posts one fixed JSON body (bench/send.ts's baseline); "parley" posts
// POST /v3/messages with a text of its own and `from` rotating (bench/send.ts --worker). Prints one JSON line.
import { createRequire } from "node:module";
const require = createRequire(`${process.env.ROOT}/package.json`);
const autocannon = require("autocannon");
const [url, mode] = process.argv.slice(2);
const env = process.env;
let sent = 0;
const numbers = Number(env.NUMBERS);
const headers = { "content-type": "application/json", ...(mode === "parley" ? { apikey: env.PARLEY_KEY } : {}) };
const echo = JSON.stringify({ accountId: "x", from: "12025550100", to: "14155550123", body: "Hello from the benchmark" });
const requests = [
  {
    setupRequest: (req) => {
      if (mode !== "parley") return { ...req, body: echo };
      const n = ++sent;
      const body = {
        accountId: env.PARLEY_ACCOUNT,
        from: `+${env.FROM_PREFIX}${String(n % numbers).padStart(4, "0")}`,
        // Last four digits 1000-9999: the simulator's …0000-…0004 stand for failures and missing receipts.
        to: `14152${String(n % 100).padStart(2, "0")}${1000 + (Math.floor(n / 100) % 9000)}`,
        body: `Your code is ${n}. Reply STOP to opt out.`,
      };
      return { ...req, body: JSON.stringify(body) };
    },
  },
];
const base = { url, method: "POST", headers, requests };
await autocannon({ ...base, connections: 10, amount: 2000 });
if (env.AFTER_WARMUP) {
  // The caller's signal that the warm-up is over; it answers by removing the file once it is ready for the load.
  const { writeFileSync, existsSync } = await import("node:fs");
  writeFileSync(env.AFTER_WARMUP, "");
  while (existsSync(env.AFTER_WARMUP)) await new Promise((resolve) => setTimeout(resolve, 100));
}
const fromUs = process.hrtime.bigint() / 1000n;
const started = performance.now();
const result = await autocannon({
  ...base,
  connections: env.RATE ? Math.min(Number(env.CONNECTIONS), Math.max(4, Math.ceil(Number(env.RATE) / 40))) : Number(env.CONNECTIONS),
  duration: Number(env.DURATION),
  overallRate: env.RATE ? Number(env.RATE) : undefined,
});
const seconds = (performance.now() - started) / 1000;
const toUs = process.hrtime.bigint() / 1000n;
console.log(
  JSON.stringify({
    ok: result["2xx"],
    seconds: Number(seconds.toFixed(2)),
    perSecond: Math.round(result["2xx"] / seconds),
    p50: result.latency.p50,
    p90: result.latency.p90,
    p99: result.latency.p99,
    errors: result.errors + result.non2xx + result.timeouts,
    fromUs: String(fromUs),
    toUs: String(toUs),
  }),
);
EOF

# run_load NAME URL MODE: the load; its JSON result in $WORK/NAME.load.json.
run_load() {
  ROOT=$ROOT DURATION=$DURATION CONNECTIONS=$CONNECTIONS RATE=$RATE NUMBERS=$NUMBERS FROM_PREFIX=$FROM_PREFIX \
    node "$WORK/load.mjs" "$2" "$3" >"$WORK/$1.load.json"
  # Kept beside the profiles: the window (fromUs, toUs) to summarise them again with bench/profile-summary.mjs.
  cp "$WORK/$1.load.json" "$OUT/$1.load.json"
}
# lock_holds URL: the write lock's holds so far, {"holder (process)": {sum, count}}, from the server's /metrics.
lock_holds() {
  node -e '
    fetch(process.argv[1]).then((r) => r.text()).then((text) => {
      const out = {};
      for (const m of text.matchAll(/^parley_sqlite_write_lock_held_seconds_(sum|count)\{([^}]*)\} (\S+)$/gm)) {
        const labels = Object.fromEntries([...m[2].matchAll(/(\w+)="([^"]*)"/g)].map((l) => [l[1], l[2]]));
        const key = `${labels.holder} (${labels.process ?? "server"})`;
        (out[key] ??= { sum: 0, count: 0 })[m[1]] = Number(m[3]);
      }
      console.log(JSON.stringify(out));
    });
  ' "$1"
}
field() { node -e 'const r = JSON.parse(require("fs").readFileSync(process.argv[1], "utf8")); console.log(r[process.argv[2]])' "$WORK/$1.load.json" "$2"; }

ROWS=()
# record NAME LABEL CPU_MS: a row of the figures table.
record() {
  local ok
  ok=$(field "$1" ok)
  ROWS+=("| $2 | $LOAD_LABEL | $(field "$1" perSecond) | $(field "$1" p50) | $(field "$1" p90) | $(field "$1" p99) | $(field "$1" errors) | $(awk -v c="$3" -v n="$ok" 'BEGIN { printf "%.3f", n ? c / n : 0 }') |")
}

# summarise LABEL FILE FROM_US TO_US PER UNIT
summarise() {
  node "$ROOT/bench/profile-summary.mjs" --label "$1" --from "$3" --to "$4" --per "$5" --unit "$6" "$2" | tee -a "$SUMMARY"
}
profile_of() { ls "$1"/CPU.*."$2".0.*.cpuprofile 2>/dev/null | head -1; }

: >"$SUMMARY"
say "# Profiles of $(date -u +%Y-%m-%dT%H:%MZ), commit $(git rev-parse --short HEAD 2>/dev/null || echo '?')"
say ""
say "$(nproc) × $(grep -m1 'model name' /proc/cpuinfo | sed 's/.*: //'), Node $(node --version); load: $LOAD_LABEL, $DURATION s after a warm-up of 2,000 requests; load average at the start $(cut -d' ' -f1-3 /proc/loadavg)"

# --- 1. bare Node http ----------------------------------------------------------------------------------------------

if wants baseline; then
  log "baseline: bare Node http under --cpu-prof"
  mkdir -p "$OUT/baseline"
  start baseline node --cpu-prof --cpu-prof-dir="$OUT/baseline" bench/baseline-server.mjs
  pid=$LAST_PID
  port=$(wait_line 30 baseline '^BASELINE_READY ' | cut -d' ' -f2)
  AFTER_WARMUP=$WORK/baseline.warm run_load baseline "http://127.0.0.1:$port/" echo &
  loader=$!
  until [[ -e $WORK/baseline.warm ]]; do sleep 0.1; done
  before=$(cpu_ms "$pid")
  rm "$WORK/baseline.warm"
  wait "$loader"
  record baseline "bare Node http, JSON echo" $(($(cpu_ms "$pid") - before))
  stop_pid "$pid"
  summarise "bare Node http (bench/baseline-server.mjs)" "$(profile_of "$OUT/baseline" "$pid")" \
    "$(field baseline fromUs)" "$(field baseline toUs)" "$(field baseline ok)" requests
fi

# --- 2. a stock Next.js route handler under next start --------------------------------------------------------------

if wants next; then
  log "next: building a one-route Next.js app (webpack) in $WORK/next-app"
  app=$WORK/next-app
  mkdir -p "$app/app/echo" "$OUT/next"
  ln -s "$ROOT/node_modules" "$app/node_modules"
  echo '{ "name": "next-ceiling", "private": true }' >"$app/package.json"
  echo 'export default {};' >"$app/next.config.mjs"
  cat >"$app/app/echo/route.js" <<'EOF'
export async function POST(request) {
  const parsed = await request.json().catch(() => ({}));
  return Response.json({ status: "ok", statusCode: 200, data: { echo: Object.keys(parsed).length } });
}
EOF
  # Turbopack refuses a node_modules outside the project's root; webpack resolves through the link.
  (cd "$app" && NEXT_TELEMETRY_DISABLED=1 node node_modules/next/dist/bin/next build --webpack >"$WORK/next-build.out" 2>&1)
  port=$(free_port)
  log "next: next start under --cpu-prof"
  (cd "$app" && NEXT_TELEMETRY_DISABLED=1 NODE_ENV=production exec node --cpu-prof --cpu-prof-dir="$OUT/next" \
    node_modules/next/dist/bin/next start -p "$port" -H 127.0.0.1) >"$WORK/next.out" 2>&1 &
  pid=$!
  PIDS+=("$pid")
  wait_line 60 next 'Ready in' >/dev/null
  AFTER_WARMUP=$WORK/next.warm run_load next "http://127.0.0.1:$port/echo" echo &
  loader=$!
  until [[ -e $WORK/next.warm ]]; do sleep 0.1; done
  before=$(cpu_ms "$pid")
  rm "$WORK/next.warm"
  wait "$loader"
  record next "Next.js route handler, next start" $(($(cpu_ms "$pid") - before))
  stop_pid "$pid"
  summarise "stock Next.js route handler (next start)" "$(profile_of "$OUT/next" "$pid")" \
    "$(field next fromUs)" "$(field next toUs)" "$(field next ok)" requests
fi

# --- 3. Parley: sends under load, and their delivery --------------------------------------------------------------

pending() { sqlite3 -readonly "$1" "select count(*) from Message where status in ('queued','sending','sent')" 2>/dev/null || echo 1; }
callbacks() { node -e 'try { console.log(JSON.parse(require("fs").readFileSync(process.argv[1], "utf8")).callbacks) } catch { console.log(0) }' "$1"; }
# drain DB STATS SECONDS: until no message is on its way and the webhook count has stopped growing, or SECONDS.
drain() {
  local deadline=$(($(date +%s) + $3)) last=-1 now
  while (($(date +%s) < deadline)); do
    now=$(callbacks "$2")
    [[ $(pending "$1") == 0 && $now == "$last" ]] && return 0
    last=$now
    sleep 1
  done
  log "still delivering after $3 s"
}

if wants parley; then
  dir=$WORK/parley
  mkdir -p "$dir/data" "$OUT/parley"
  log "parley: checking the production build (node scripts/build-if-needed.mjs)"
  node scripts/build-if-needed.mjs >&2
  start receiver node bench/compare-kannel/callback-receiver.mjs --stats "$dir/callbacks.json"
  receiver=$LAST_PID
  receiver_port=$(wait_line 30 receiver '^CALLBACK_RECEIVER_READY ' | cut -d' ' -f2)
  export NODE_ENV=production NEXT_TELEMETRY_DISABLED=1 LOG_LEVEL=warn PARLEY_DEMO=false PARLEY_WORKER=true \
    DATABASE_URL="file:$dir/parley.db" PARLEY_DATA_DIR="$dir/data" WEBHOOK_ALLOW_PRIVATE=true CARRIER=simulator \
    SIMULATOR_RECEIPT_DELAY_MS=1000
  log "parley: account, API key and webhook through the CLI"
  account=$(npm run -s parley -- account create --name "Profile" --rate 100000 2>>"$WORK/parley-cli.out")
  key=$(npm run -s parley -- key create --account "$account" --name profile 2>>"$WORK/parley-cli.out")
  npm run -s parley -- webhook set --account "$account" --url "http://127.0.0.1:$receiver_port/parley" \
    >/dev/null 2>>"$WORK/parley-cli.out"
  port=$(free_port)
  log "parley: starting the server under --cpu-prof (node --cpu-prof --max-semi-space-size=64 --import tsx server.ts)"
  HOST=127.0.0.1 PORT=$port PARLEY_READY_FD=stdout \
    start parley-server node --cpu-prof --cpu-prof-dir="$OUT/parley" --max-semi-space-size=64 --import tsx server.ts
  server=$LAST_PID
  wait_line 180 parley-server '^PARLEY_READY ' >/dev/null
  # The server's children: tsx's esbuild service and the worker process (the one running worker/main.ts).
  worker=$(pgrep -P "$server" -f "worker/main.ts" | head -1)
  log "parley: provisioning $NUMBERS numbers (server pid $server, worker pid $worker)"
  node bench/compare-kannel/measure.mjs provision --base "http://127.0.0.1:$port" --account "$account" --key "$key" \
    --prefix "$FROM_PREFIX" --count "$NUMBERS" >/dev/null
  log "parley: warm-up, then $DURATION s of load"
  PARLEY_ACCOUNT=$account PARLEY_KEY=$key AFTER_WARMUP=$WORK/parley.warm \
    run_load parley "http://127.0.0.1:$port/v3/messages" parley &
  loader=$!
  until [[ -e $WORK/parley.warm ]]; do sleep 0.1; done
  drain "$dir/parley.db" "$dir/callbacks.json" "$DRAIN_CAP"
  lock_holds "http://127.0.0.1:$port/metrics" >"$WORK/locks-before.json"
  server_before=$(cpu_ms "$server")
  worker_before=$(cpu_ms "$worker")
  delivered_before=$(sqlite3 -readonly "$dir/parley.db" "select count(*) from Message where status = 'delivered'")
  callbacks_before=$(callbacks "$dir/callbacks.json")
  rm "$WORK/parley.warm"
  wait "$loader"
  server_load=$(($(cpu_ms "$server") - server_before))
  worker_load=$(($(cpu_ms "$worker") - worker_before))
  log "parley: load done; waiting for the deliveries and webhooks (at most $DRAIN_CAP s)"
  drain "$dir/parley.db" "$dir/callbacks.json" "$DRAIN_CAP"
  drained_us=$(node -e 'console.log(String(process.hrtime.bigint() / 1000n))')
  worker_all=$(($(cpu_ms "$worker") - worker_before))
  server_all=$(($(cpu_ms "$server") - server_before))
  delivered=$(($(sqlite3 -readonly "$dir/parley.db" "select count(*) from Message where status = 'delivered'") - delivered_before))
  hooks=$(($(callbacks "$dir/callbacks.json") - callbacks_before))
  lock_holds "http://127.0.0.1:$port/metrics" >"$WORK/locks-after.json"
  record parley "Parley POST /v3/messages, worker on" "$server_load"
  stop_pid "$server"
  stop_pid "$receiver"
  accepted=$(field parley ok)
  say ""
  say "Parley: $accepted sends accepted in $(field parley seconds) s; the server's CPU during the load $server_load ms ($(awk -v c="$server_load" -v n="$accepted" 'BEGIN { printf "%.3f", c / n }') ms a send), the worker's $worker_load ms. From the start of the load until the queue was empty: $delivered messages delivered, $hooks webhooks received; the worker's CPU $worker_all ms ($(awk -v c="$worker_all" -v n="$delivered" 'BEGIN { printf "%.3f", n ? c / n : 0 }') ms a delivered message), the server's $server_all ms, $(awk -v s="$(field parley fromUs)" -v e="$drained_us" 'BEGIN { printf "%.1f", (e - s) / 1e6 }') s in all."
  say ""
  say "$(node -e '
    const [before, after] = process.argv.slice(1, 3).map((f) => JSON.parse(require("fs").readFileSync(f, "utf8")));
    const seconds = Number(process.argv[3]) / 1e6, messages = Number(process.argv[4]);
    const parts = Object.keys(after).sort().map((k) => {
      const sum = after[k].sum - (before[k]?.sum ?? 0), count = after[k].count - (before[k]?.count ?? 0);
      return `${k} ${(sum * 1000).toFixed(0)} ms in ${count} transactions (${(sum * 1e6 / messages).toFixed(0)} µs a message)`;
    });
    const all = Object.keys(after).reduce((t, k) => t + after[k].sum - (before[k]?.sum ?? 0), 0);
    console.log(`SQLite write lock held (parley_sqlite_write_lock_held_seconds), from the load start until delivered: ${parts.join("; ")}; in all ${all.toFixed(1)} s of ${seconds.toFixed(1)} s.`);
  ' "$WORK/locks-before.json" "$WORK/locks-after.json" "$((drained_us - $(field parley fromUs)))" "$delivered")"
  summarise "Parley server, main thread: sends under load" "$(profile_of "$OUT/parley" "$server")" \
    "$(field parley fromUs)" "$(field parley toUs)" "$accepted" sends
  for file in "$OUT"/parley/CPU.*."$server".[1-9]*.cpuprofile; do
    [[ -e $file ]] || continue
    role=$(grep -o -m1 -E '[a-z-]+-thread\.mjs' "$file" | head -1 || true)
    summarise "Parley server, thread ${role:-$(basename "$file")}: during the load" "$file" \
      "$(field parley fromUs)" "$(field parley toUs)" "$accepted" sends
  done
  summarise "Parley delivery worker process: from the load's start until delivered" \
    "$(profile_of "$OUT/parley" "$worker")" "$(field parley fromUs)" "$drained_us" "$delivered" "delivered messages"
  for file in "$OUT"/parley/CPU.*."$worker".[1-9]*.cpuprofile; do
    [[ -e $file ]] || continue
    role=$(grep -o -m1 -E '[a-z-]+-thread\.mjs' "$file" | head -1 || true)
    summarise "Parley worker, thread ${role:-$(basename "$file")}" "$file" \
      "$(field parley fromUs)" "$drained_us" "$delivered" "delivered messages"
  done
fi

say ""
say "| target | load | requests/s | p50 ms | p90 ms | p99 ms | errors | CPU ms per request |"
say "| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: |"
for row in "${ROWS[@]}"; do say "$row"; done
say ""
say "CPU ms per request: every thread of the server process (for Parley the server, not its worker process) during the load, from /proc, divided by the requests answered 2xx. Profiles: $OUT"
log "profiles and summary.md in $OUT"
