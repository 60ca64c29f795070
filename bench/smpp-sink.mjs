// An SMSC that takes everything: it accepts any bind, answers every submit_sm at once (ESME_ROK, a decimal
// message_id) and, when the submit asks for a receipt (registered_delivery), sends a DELIVRD delivery receipt for it
// as a deliver_sm right after the answer, on a session that can receive (the same one for a transceiver).
// It counts submits and acknowledged receipts per second, and how long receipts wait for their deliver_sm_resp (a
// gateway that stores a receipt before acknowledging it answers once it is stored), for bench/compare-kannel.sh.
//   node bench/smpp-sink.mjs [--port 0] [--host 127.0.0.1] [--stats FILE]
// Prints "SMPP_SINK_READY <port>" on stdout once listening. With --stats the counts are written to FILE (JSON)
// every 250 ms and on exit; on SIGTERM or SIGINT they are also printed on stderr.
import { renameSync, writeFileSync } from "node:fs";
import { parseArgs } from "node:util";
import { clearInterval, setInterval } from "node:timers";
import { performance } from "node:perf_hooks";
import smpp from "smpp";

const { values } = parseArgs({
  options: {
    port: { type: "string", default: "0" },
    host: { type: "string", default: "127.0.0.1" },
    stats: { type: "string" },
  },
});

const stats = {
  startedAt: Date.now(),
  writtenAt: 0,
  binds: [],
  submits: 0,
  /** submit_sm with registered_delivery set. */
  receiptsAsked: 0,
  receiptsSent: 0,
  /** deliver_sm_resp with status 0. */
  receiptsAcked: 0,
  receiptsRefused: 0,
  /** Asked for but not sent: no session that can receive was bound. */
  receiptsUnsent: 0,
  firstSubmitAt: null,
  lastSubmitAt: null,
  firstReceiptAt: null,
  lastReceiptAt: null,
  /** Unix second → [submits, receipts acknowledged]. */
  perSecond: {},
  /** How long the acknowledged receipts waited for their deliver_sm_resp, ms: median, 99th percentile, longest. */
  receiptAckMs: null,
};

// The receipts' waits for their deliver_sm_resp, by whole millisecond (the last slot: 10 s or more).
const ackWaits = new Uint32Array(10_001);

function ackPercentiles() {
  const n = stats.receiptsAcked;
  if (n === 0) return null;
  const at = (share) => {
    const rank = Math.ceil(share * n);
    let seen = 0;
    for (let ms = 0; ms < ackWaits.length; ms++) if ((seen += ackWaits[ms]) >= rank) return ms;
    return ackWaits.length - 1;
  };
  let max = ackWaits.length - 1;
  while (max > 0 && ackWaits[max] === 0) max--;
  return { p50: at(0.5), p99: at(0.99), max };
}

function tick(index) {
  const now = Date.now();
  const second = Math.floor(now / 1000);
  const slot = (stats.perSecond[second] ??= [0, 0]);
  slot[index]++;
  return now;
}

// The receipt's dates, YYMMDDhhmm, as SMSCs write them.
function receiptDate(ms) {
  const d = new Date(ms);
  const two = (n) => String(n).padStart(2, "0");
  return `${two(d.getUTCFullYear() % 100)}${two(d.getUTCMonth() + 1)}${two(d.getUTCDate())}${two(d.getUTCHours())}${two(d.getUTCMinutes())}`;
}

let nextMessageId = 1;
/** Bound sessions that may be sent deliver_sm (receivers and transceivers), newest last. */
const receivers = [];

function sendReceipt(session, submit, messageId, submittedAt) {
  const target = session.canReceive ? session : receivers.at(-1);
  if (!target) {
    stats.receiptsUnsent++;
    return;
  }
  const date = receiptDate(submittedAt);
  const text = `id:${messageId} sub:001 dlvrd:001 submit date:${date} done date:${receiptDate(Date.now())} stat:DELIVRD err:000 text:`;
  const sentAt = performance.now();
  const sent = target.deliver_sm(
    {
      source_addr_ton: submit.dest_addr_ton,
      source_addr_npi: submit.dest_addr_npi,
      source_addr: submit.destination_addr,
      dest_addr_ton: submit.source_addr_ton,
      dest_addr_npi: submit.source_addr_npi,
      destination_addr: submit.source_addr,
      esm_class: 0x04,
      data_coding: 0,
      short_message: Buffer.from(text, "ascii"),
      receipted_message_id: messageId,
      message_state: 2, // DELIVERED
    },
    (resp) => {
      if (resp.command_status === 0) {
        stats.receiptsAcked++;
        ackWaits[Math.min(ackWaits.length - 1, Math.floor(performance.now() - sentAt))]++;
        const at = tick(1);
        stats.firstReceiptAt ??= at;
        stats.lastReceiptAt = at;
      } else stats.receiptsRefused++;
    },
  );
  if (sent) stats.receiptsSent++;
  else stats.receiptsUnsent++;
}

const server = smpp.createServer((session) => {
  session.on("error", () => session.destroy());
  session.on("close", () => {
    const at = receivers.indexOf(session);
    if (at >= 0) receivers.splice(at, 1);
  });
  const bind = (kind, canReceive) => (pdu) => {
    stats.binds.push({ kind, systemId: String(pdu.system_id), at: Date.now() });
    session.canReceive = canReceive;
    if (canReceive) receivers.push(session);
    session.send(pdu.response({ system_id: "SINK" }));
  };
  session.on("bind_transceiver", bind("transceiver", true));
  session.on("bind_transmitter", bind("transmitter", false));
  session.on("bind_receiver", bind("receiver", true));
  session.on("submit_sm", (pdu) => {
    const at = tick(0);
    stats.submits++;
    stats.firstSubmitAt ??= at;
    stats.lastSubmitAt = at;
    const messageId = String(nextMessageId++);
    session.send(pdu.response({ message_id: messageId }));
    if (Number(pdu.registered_delivery) & 0x03) {
      stats.receiptsAsked++;
      sendReceipt(session, pdu, messageId, at);
    }
  });
  session.on("enquire_link", (pdu) => session.send(pdu.response()));
  session.on("unbind", (pdu) => {
    const at = receivers.indexOf(session);
    if (at >= 0) receivers.splice(at, 1);
    session.send(pdu.response(), () => session.close());
  });
});

function writeStats() {
  if (!values.stats) return;
  stats.writtenAt = Date.now();
  stats.receiptAckMs = ackPercentiles();
  const temporary = `${values.stats}.tmp`;
  writeFileSync(temporary, JSON.stringify(stats));
  renameSync(temporary, values.stats);
}

server.listen(Number(values.port), values.host, () => {
  process.stdout.write(`SMPP_SINK_READY ${server.address().port}\n`);
});
const timer = setInterval(writeStats, 250);

function stop(signal) {
  clearInterval(timer);
  writeStats();
  const { perSecond, binds, ...totals } = stats;
  process.stderr.write(
    `smpp-sink (${signal}): ${JSON.stringify(totals)} binds ${binds.length}, busiest second ${Math.max(0, ...Object.values(perSecond).map((s) => s[0]))} submits\n`,
  );
  process.exit(0);
}
process.on("SIGTERM", () => stop("SIGTERM"));
process.on("SIGINT", () => stop("SIGINT"));
