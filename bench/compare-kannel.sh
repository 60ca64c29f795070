#!/usr/bin/env bash
# Parley beside Kannel 1.4.5 (Debian's `kannel`), both sending to the same SMSC (bench/smpp-sink.mjs: answers every
# submit_sm at once and sends a DELIVRD receipt for each one that asks), under the same wrk load, one after the other:
#   1. Kannel plain: GET /cgi-bin/sendsms on smsbox, no delivery report asked;
#   2. Kannel DLR:   the same with dlr-mask=3 and a dlr-url on a local HTTP receiver;
#   3. Parley:       POST /v3/messages (one destination, `from` rotating over --numbers provisioned numbers), the
#                    server as `npm start` runs it (production build, SQLite, in-process worker and webhook
#                    dispatcher) with CARRIER=smpp, and the account's webhook on the same kind of receiver.
# Prints a Markdown table (accepted requests/s and p99 from wrk; messages to the SMSC, receipts and callbacks per
# second from the sink's and the receiver's counts, during the load and until everything arrived or the drain cap)
# and writes the raw figures to bench/results/compare-kannel.json. It also reads the kernel's CPU accounting of
# the gateway's processes (bearerbox and smsbox, or Parley's server): the CPU time each scenario used, per message,
# and how long its busiest thread waited for a CPU, which tells a starved run on a busy machine from a slow gateway.
#
#   npm run bench:kannel -- [--duration 20] [--drain-cap 60] [--numbers 10000] [--threads 2] [--connections 50]
#                           [--window 10] [--only kannel-plain,kannel-dlr,parley] [--parley-worker on|off] [--keep]
#
# BENCH_NODE_FLAGS adds flags to Parley's `node` (its worker process inherits them), e.g.
# BENCH_NODE_FLAGS="--cpu-prof --cpu-prof-dir=/tmp/profiles" for a CPU profile of each process and thread.
#
# --parley-worker off starts Parley without its delivery worker (PARLEY_WORKER=false): nothing is sent to the SMSC,
# and the run measures what the server alone accepts and the CPU it spends a send (the drain is skipped).
#
# Installs `kannel` and `wrk` with apt-get when missing, with a policy-rc.d that keeps the system service from
# starting; the boxes run here from configuration files written to a temporary directory. Everything listens on
# 127.0.0.1 on free ports; every process started is stopped by its pid on exit and the temporary directory removed
# (--keep leaves it, with the configuration files, logs and databases, for a look afterwards).
set -euo pipefail

cd "$(dirname "$0")/.."
ROOT=$PWD
HERE=$ROOT/bench/compare-kannel

DURATION=20
DRAIN_CAP=60
NUMBERS=10000
THREADS=2
CONNECTIONS=50
WINDOW=10
ONLY=kannel-plain,kannel-dlr,parley
KEEP=""
PARLEY_WORKER_MODE=on
FROM_PREFIX=1212200 # Parley's numbers and every `from`: +1 212 200 0000 …

usage() { awk 'NR > 1 && !/^#/ { exit } NR > 1 { sub(/^# ?/, ""); print }' "$0"; }
while (($#)); do
  case $1 in
    --duration) DURATION=$2; shift 2 ;;
    --drain-cap) DRAIN_CAP=$2; shift 2 ;;
    --numbers) NUMBERS=$2; shift 2 ;;
    --threads) THREADS=$2; shift 2 ;;
    --connections) CONNECTIONS=$2; shift 2 ;;
    --window) WINDOW=$2; shift 2 ;;
    --only) ONLY=$2; shift 2 ;;
    --parley-worker) PARLEY_WORKER_MODE=$2; shift 2 ;;
    --keep) KEEP=1; shift ;;
    -h | --help) usage; exit 0 ;;
    *) echo "compare-kannel: unknown option $1" >&2; usage >&2; exit 2 ;;
  esac
done
for value in "$DURATION" "$DRAIN_CAP" "$NUMBERS" "$THREADS" "$CONNECTIONS" "$WINDOW"; do
  [[ $value =~ ^[1-9][0-9]*$ ]] || { echo "compare-kannel: \"$value\" is not a positive whole number" >&2; exit 2; }
done
[[ $PARLEY_WORKER_MODE == on || $PARLEY_WORKER_MODE == off ]] ||
  { echo "compare-kannel: --parley-worker is on or off" >&2; exit 2; }
((NUMBERS <= 10000)) || { echo "compare-kannel: --numbers is at most 10000" >&2; exit 2; }
wants() { [[ ,$ONLY, == *,$1,* ]]; }

log() { printf '%s compare-kannel: %s\n' "$(date +%H:%M:%S)" "$*" >&2; }
now_ms() { date +%s%3N; }

# --- what the benchmark needs from Debian -------------------------------------------------------------------------

install_missing() {
  local missing=()
  if wants kannel-plain || wants kannel-dlr; then
    [[ -x /usr/sbin/bearerbox && -x /usr/sbin/smsbox ]] || missing+=(kannel)
  fi
  command -v wrk >/dev/null || missing+=(wrk)
  ((${#missing[@]})) || return 0
  local sudo=""
  [[ $(id -u) == 0 ]] || sudo=sudo
  log "installing ${missing[*]} from Debian (the kannel service is not started)"
  # invoke-rc.d asks policy-rc.d before starting a service; 101 means "not allowed".
  local policy=/usr/sbin/policy-rc.d made_policy=""
  if [[ ! -e $policy ]]; then
    printf '#!/bin/sh\nexit 101\n' | $sudo tee "$policy" >/dev/null
    $sudo chmod 755 "$policy"
    made_policy=1
  fi
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >&2
  [[ -z $made_policy ]] || $sudo rm -f "$policy"
}
install_missing

# --- processes ----------------------------------------------------------------------------------------------------

WORK=$(mktemp -d "${TMPDIR:-/tmp}/compare-kannel.XXXXXX")
PIDS=()
declare -A NAMES=()
LAST_PID=""

stop_pid() {
  local pid=$1 i
  kill -0 "$pid" 2>/dev/null || return 0
  kill -TERM "$pid" 2>/dev/null || true
  for ((i = 0; i < 150; i++)); do
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.1
  done
  kill -0 "$pid" 2>/dev/null && kill -KILL "$pid" 2>/dev/null
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
    # What the processes said last, to see why a step failed.
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
  NAMES[$LAST_PID]=$name
}

# wait_for SECONDS WHAT COMMAND…: until COMMAND succeeds; fails early when a process started here has ended.
wait_for() {
  local seconds=$1 what=$2 deadline pid
  shift 2
  deadline=$(($(date +%s) + seconds))
  until "$@" 2>/dev/null; do
    for pid in "${PIDS[@]}"; do
      if ! kill -0 "$pid" 2>/dev/null; then
        log "${NAMES[$pid]} ended while waiting for $what"
        return 1
      fi
    done
    if (($(date +%s) >= deadline)); then
      log "gave up waiting for $what after $seconds s"
      return 1
    fi
    sleep 0.2
  done
}

ready_port() { sed -n "s/^$2 \([0-9]*\)$/\1/p" "$WORK/$1.out" | head -n1; }
has_line() { grep -q "$2" "$WORK/$1.out"; }
sink_bound() { grep -q '"binds":\[{' "$1"; }

# The SMSC sink and the callback receiver of one scenario, on free ports.
start_counters() {
  local id=$1
  start "$id-sink" node bench/smpp-sink.mjs --port 0 --stats "$WORK/$id/sink.json"
  SINK_PID=$LAST_PID
  start "$id-receiver" node "$HERE/callback-receiver.mjs" --port 0 --stats "$WORK/$id/receiver.json"
  RECEIVER_PID=$LAST_PID
  wait_for 30 "the SMPP sink" has_line "$id-sink" '^SMPP_SINK_READY '
  wait_for 30 "the callback receiver" has_line "$id-receiver" '^CALLBACK_RECEIVER_READY '
  SMPP_PORT=$(ready_port "$id-sink" SMPP_SINK_READY)
  RECEIVER_PORT=$(ready_port "$id-receiver" CALLBACK_RECEIVER_READY)
}

load_average() { cut -d' ' -f1-3 /proc/loadavg; }

# "thread-id cpu-ns run-queue-wait-ns" for every thread of the given processes (the kernel's schedstat).
cpu_snapshot() {
  local pid task
  for pid in "$@"; do
    for task in /proc/"$pid"/task/*; do
      [[ -r $task/schedstat ]] && printf '%s %s\n' "${task##*/}" "$(cut -d' ' -f1,2 "$task/schedstat")"
    done
  done
  return 0
}

# run_load ID SCRIPT URL [drain options…]: wrk for DURATION seconds, then the drain, into $WORK/results/ID.json.
# GATEWAY_PIDS: the processes under test, whose CPU time is read before, right after the load and at the end.
run_load() {
  local id=$1 script=$2 url=$3
  shift 3
  local started ended
  log "$id: wrk -t$THREADS -c$CONNECTIONS -d${DURATION}s $url (load average $(load_average))"
  printf '{"loadAverage":"%s"%s}\n' "$(load_average)" "${SETUP_EXTRA:-}" >"$WORK/results/$id-setup.json"
  # shellcheck disable=SC2086 # a list of pids
  cpu_snapshot $GATEWAY_PIDS >"$WORK/$id/cpu-start.txt"
  started=$(now_ms)
  WRK_COMMON=$HERE/wrk-common.lua WRK_RESULT=$WORK/$id/wrk.json FROM_PREFIX=$FROM_PREFIX FROM_COUNT=$NUMBERS \
    WRK_THREADS=$THREADS \
    wrk -t"$THREADS" -c"$CONNECTIONS" -d"${DURATION}s" --timeout 10s --latency -s "$HERE/$script" "$url" \
    >"$WORK/$id/wrk.out" 2>&1
  ended=$(now_ms)
  # shellcheck disable=SC2086
  cpu_snapshot $GATEWAY_PIDS >"$WORK/$id/cpu-load-end.txt"
  log "$id: load done; waiting for the SMSC and the callbacks (at most ${DRAIN_CAP} s)"
  node "$HERE/measure.mjs" drain --sink "$WORK/$id/sink.json" --receiver "$WORK/$id/receiver.json" \
    --wrk "$WORK/$id/wrk.json" --load-start "$started" --load-end "$ended" --cap "$DRAIN_CAP" \
    --cpu-pids "$GATEWAY_PIDS" --cpu-dir "$WORK/$id" --out "$WORK/results/$id.json" "$@"
}

# --- Kannel -------------------------------------------------------------------------------------------------------

kannel_config() {
  local dir=$1
  cat <<EOF
group = core
admin-port = $ADMIN_PORT
admin-interface = 127.0.0.1
admin-password = compare
admin-allow-ip = "127.0.0.1"
smsbox-port = $BOX_PORT
smsbox-interface = 127.0.0.1
box-allow-ip = "127.0.0.1"
box-deny-ip = "*.*.*.*"
log-file = "$dir/bearerbox.log"
log-level = 2
store-type = file
store-location = "$dir/kannel.store"
dlr-storage = internal

group = smsc
smsc = smpp
smsc-id = sink
host = 127.0.0.1
port = $SMPP_PORT
receive-port = 0
transceiver-mode = true
smsc-username = kannel
smsc-password = compare
system-type = ""
max-pending-submits = $WINDOW

group = smsbox
bearerbox-host = 127.0.0.1
bearerbox-port = $BOX_PORT
sendsms-port = $SENDSMS_PORT
sendsms-interface = 127.0.0.1
log-file = "$dir/smsbox.log"
log-level = 2

group = sendsms-user
username = compare
password = compare

group = sms-service
keyword = default
text = "No service"
EOF
}

kannel_status() { curl -fsS "http://127.0.0.1:$ADMIN_PORT/status.txt?password=compare"; }
kannel_smsc_online() { kannel_status | grep -q 'SMPP:.*(online'; }
kannel_smsbox_connected() { kannel_status | grep -q 'smsbox:.*on-line'; }
kannel_sendsms_up() { curl -sS -o /dev/null "http://127.0.0.1:$SENDSMS_PORT/"; }

kannel_scenario() {
  local id=$1 dlr=$2 dir=$WORK/$1
  mkdir -p "$dir"
  start_counters "$id"
  read -r ADMIN_PORT BOX_PORT SENDSMS_PORT <<<"$(node "$HERE/measure.mjs" ports 3)"
  kannel_config "$dir" >"$dir/kannel.conf"
  log "$id: starting bearerbox and smsbox (store-type file)"
  start "$id-bearerbox" /usr/sbin/bearerbox -v 3 "$dir/kannel.conf"
  local bearerbox=$LAST_PID
  wait_for 30 "bearerbox's SMPP bind" sink_bound "$dir/sink.json"
  wait_for 30 "bearerbox's admin page" kannel_smsc_online
  start "$id-smsbox" /usr/sbin/smsbox -v 3 "$dir/kannel.conf"
  local smsbox=$LAST_PID
  wait_for 30 "smsbox's connection to bearerbox" kannel_smsbox_connected
  wait_for 30 "smsbox's sendsms port" kannel_sendsms_up
  local dlr_url="" drain_options=()
  if [[ $dlr == yes ]]; then
    dlr_url="http://127.0.0.1:$RECEIVER_PORT/kannel?type=%d"
    drain_options=(--receipts --callbacks)
  fi
  GATEWAY_PIDS="$bearerbox $smsbox" SENDSMS_USER=compare SENDSMS_PASSWORD=compare DLR_URL=$dlr_url \
    run_load "$id" kannel-sendsms.lua "http://127.0.0.1:$SENDSMS_PORT" "${drain_options[@]}"
  stop_pid "$smsbox"
  stop_pid "$bearerbox"
  stop_pid "$RECEIVER_PID"
  stop_pid "$SINK_PID"
}

# --- Parley -------------------------------------------------------------------------------------------------------

parley_scenario() {
  local id=parley dir=$WORK/parley
  mkdir -p "$dir/data"
  start_counters "$id"
  local http_port
  http_port=$(node "$HERE/measure.mjs" ports 1)
  local with_worker=true
  [[ $PARLEY_WORKER_MODE == on ]] || with_worker=false
  export NODE_ENV=production NEXT_TELEMETRY_DISABLED=1 LOG_LEVEL=warn PARLEY_DEMO=false PARLEY_WORKER=$with_worker \
    DATABASE_URL="file:$dir/parley.db" PARLEY_DATA_DIR="$dir/data" WEBHOOK_ALLOW_PRIVATE=true
  log "parley: account, API key and webhook through the CLI"
  local account key
  account=$(npm run -s parley -- account create --name "Kannel comparison" --rate 100000 2>>"$WORK/parley-cli.out")
  key=$(npm run -s parley -- key create --account "$account" --name compare-kannel 2>>"$WORK/parley-cli.out")
  npm run -s parley -- webhook set --account "$account" --url "http://127.0.0.1:$RECEIVER_PORT/parley" \
    >/dev/null 2>>"$WORK/parley-cli.out"
  log "parley: starting the server (CARRIER=smpp, SMPP_WINDOW=$WINDOW)"
  HOST=127.0.0.1 PORT=$http_port CARRIER=smpp SMPP_HOST=127.0.0.1 SMPP_PORT=$SMPP_PORT SMPP_SYSTEM_ID=parley \
    SMPP_PASSWORD=compare SMPP_WINDOW=$WINDOW PARLEY_READY_FD=stdout \
    start parley-server node --max-semi-space-size=64 ${BENCH_NODE_FLAGS:-} .next/parley/server.mjs
  local server=$LAST_PID
  wait_for 180 "the Parley server" has_line parley-server '^PARLEY_READY '
  if [[ $with_worker == true ]]; then
    wait_for 60 "Parley's SMPP bind" sink_bound "$dir/sink.json"
  else
    log "parley: no delivery worker (--parley-worker off): nothing goes to the SMSC; the server alone is measured"
  fi
  log "parley: provisioning $NUMBERS numbers"
  local provision_s
  provision_s=$(node "$HERE/measure.mjs" provision --base "http://127.0.0.1:$http_port" --account "$account" \
    --key "$key" --prefix "$FROM_PREFIX" --count "$NUMBERS")
  # The server and the delivery worker process it started: both are the gateway.
  local worker
  worker=$(pgrep -P "$server" | tr '\n' ' ' || true)
  # Without the worker nothing will arrive at the SMSC: a drain of a second instead of the cap (bash's locals are seen
  # by the functions this one calls).
  local DRAIN_CAP=$DRAIN_CAP
  [[ $with_worker == true ]] || DRAIN_CAP=1
  GATEWAY_PIDS="$server $worker" PARLEY_ACCOUNT=$account PARLEY_KEY=$key SETUP_EXTRA=",\"provisionSeconds\":$provision_s" \
    run_load parley parley-send.lua "http://127.0.0.1:$http_port" --receipts --callbacks
  stop_pid "$server"
  stop_pid "$RECEIVER_PID"
  stop_pid "$SINK_PID"
}

# --- the run ------------------------------------------------------------------------------------------------------

mkdir -p "$WORK/results"
if wants parley; then
  log "checking the production build (node scripts/build-if-needed.mjs)"
  node scripts/build-if-needed.mjs >&2
fi
node "$HERE/measure.mjs" meta --duration "$DURATION" --drain-cap "$DRAIN_CAP" --numbers "$NUMBERS" \
  --threads "$THREADS" --connections "$CONNECTIONS" --window "$WINDOW" \
  --versions "$(dpkg-query -W -f='${Package} ${Version}, ' kannel wrk 2>/dev/null || true)" >"$WORK/results/meta.json"

if wants kannel-plain; then kannel_scenario kannel-plain no; fi
if wants kannel-dlr; then kannel_scenario kannel-dlr yes; fi
if wants parley; then parley_scenario; fi

node "$HERE/measure.mjs" report --dir "$WORK/results" --out "$ROOT/bench/results/compare-kannel.json"
