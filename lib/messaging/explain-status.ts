// Why a message is where it is, in plain words, from its status, its rejection reason and the details of its SDRs:
// what the portal says at the top of a rejected or failed message (the message page, the conversation view).
// Pure: no server imports, so client components use it as it is.
//
// Where the details come from (docs/DELIVERY.md):
// - a send refused by Parley: status `rejected`, the reason (FromNotOwned, InvalidDestination, DuplicateDestination,
//   OptedOut) as the message's rejectReason and as the `rejected` SDR's details;
// - a carrier's refusal at submit: `<code> <detail>`, e.g. `0x0b ESME_RINVDSTADR` (SMPP command_status) or
//   `0x0000000B ESME_RINVDSTADR (simulated)`, or one of the worker's own codes (NOT_BOUND, TIMEOUT, …), followed by
//   `; gave up after N attempts` (failed) or `; attempt N at <time>` (a retry to come);
// - a delivery receipt: the carrier's note, `id:… stat:UNDELIV err:001 …`;
// - no receipt in time: `no delivery receipt within the validity period`.

import { isFinal, VALIDITY_UNSENT_NOTE as VALIDITY_UNSENT } from "./message-status";

export interface ExplainInput {
  /** The message's listing status ("" for inbound). */
  status: string;
  rejectReason?: string | null;
  sdrs: { status: string; statusDetails: string; segmentNumber?: number }[];
}

export interface Explanation {
  tone: "error" | "warning" | "info";
  /** The sentence to lead with. */
  title: string;
  /** What it means or what to do next. */
  detail?: string;
  /** The code it was read from (`ESME_RINVDSTADR (0x0B)`, `stat:UNDELIV err:001`), for support. */
  code?: string;
  /** When a temporary refusal is tried again (ISO 8601). */
  retryAt?: string;
}

/** A status after which nothing changes any more (inbound messages, status "", have no delivery to wait for). */
export function isFinalStatus(status: string): boolean {
  return status === "" || isFinal(status);
}

const REJECT_REASONS: Record<string, { title: string; detail: string }> = {
  OptedOut: {
    title: "The recipient opted out (texted STOP), so Parley did not send it.",
    detail:
      "Messages from this account to that number are refused until the recipient texts START, or an admin opts them back in on the Opt-outs page.",
  },
  FromNotOwned: {
    title: "The sending number (from) does not belong to this account, so nothing was sent.",
    detail: "Send from one of the account's own numbers (see Numbers).",
  },
  InvalidDestination: {
    title: "The destination is not a valid phone number, so nothing was sent.",
    detail: "Write numbers as digits with the country code, such as 14155550123.",
  },
  DuplicateDestination: {
    title: "The same number appeared earlier in the request, so this copy was not sent.",
    detail: "The number got the message once, from the first entry.",
  },
  CountryNotAllowed: {
    title: "The account does not send to this phone's country, so nothing was sent.",
    detail:
      "An admin can add the country under Settings → Guard rails → Allowed countries (by default, only the countries of the account's numbers).",
  },
};

// SMPP 3.4 command_status values (§5.1.3) a submit_sm_resp may carry, by number.
const SMPP_STATUSES: Record<number, { name: string; text: string }> = {
  0x01: { name: "ESME_RINVMSGLEN", text: "The carrier says the message is too long." },
  0x08: { name: "ESME_RSYSERR", text: "The carrier had an internal error." },
  0x0a: { name: "ESME_RINVSRCADR", text: "The carrier does not accept the sending number (from)." },
  0x0b: { name: "ESME_RINVDSTADR", text: "The carrier says the destination number is not valid." },
  0x14: { name: "ESME_RMSGQFUL", text: "The carrier's message queue is full." },
  0x15: { name: "ESME_RINVSERTYP", text: "The carrier does not accept the service type." },
  0x33: { name: "ESME_RINVNUMDESTS", text: "The carrier does not accept the number of destinations." },
  0x43: { name: "ESME_RINVESMCLASS", text: "The carrier does not accept the message's kind (esm_class)." },
  0x45: { name: "ESME_RSUBMITFAIL", text: "The carrier refused the message." },
  0x48: { name: "ESME_RINVSRCTON", text: "The carrier does not accept the sending number's format." },
  0x49: { name: "ESME_RINVSRCNPI", text: "The carrier does not accept the sending number's format." },
  0x50: { name: "ESME_RINVDSTTON", text: "The carrier does not accept the destination number's format." },
  0x51: { name: "ESME_RINVDSTNPI", text: "The carrier does not accept the destination number's format." },
  0x58: { name: "ESME_RTHROTTLED", text: "The carrier asked Parley to slow down (too many messages too fast)." },
  0x61: { name: "ESME_RINVSCHED", text: "The carrier does not accept the scheduled delivery time." },
  0x62: { name: "ESME_RINVEXPIRY", text: "The carrier does not accept the validity period." },
  0x64: { name: "ESME_RX_T_APPN", text: "The carrier refused the message for now." },
  0x65: { name: "ESME_RX_P_APPN", text: "The carrier refused the message for good." },
  0x66: { name: "ESME_RX_R_APPN", text: "The carrier rejected the message." },
  0xfe: { name: "ESME_RDELIVERYFAILURE", text: "The carrier could not deliver the message." },
  0xff: { name: "ESME_RUNKNOWNERR", text: "The carrier reported an unknown error." },
  0x101: { name: "ESME_RPROHIBITED", text: "The carrier does not allow this sender." },
  0x104: { name: "ESME_RINVDCS", text: "The carrier does not support the message's character set." },
};

// The worker's own codes for a submit that did not reach an answer from the carrier.
const WORKER_CODES: Record<string, string> = {
  NOT_BOUND:
    "Parley was not connected to the carrier (the SMPP link was down), so the message could not be handed over.",
  TIMEOUT: "The carrier did not confirm the message in time.",
  CONNECTION_LOST: "The connection to the carrier dropped before the carrier confirmed the message.",
  CARRIER_ERROR: "The connection to the carrier failed with an unexpected error.",
  ENCODING: "The message could not be encoded for the carrier.",
};

// Delivery receipt `stat:` values (SMPP 3.4 Appendix B).
const RECEIPT_STATS: Record<string, string> = {
  DELIVRD: "The carrier delivered the message to the phone.",
  UNDELIV: "The carrier could not deliver the message to the phone.",
  EXPIRED:
    "The carrier gave up: the phone stayed unreachable (switched off or out of coverage) until the message expired.",
  REJECTD: "The carrier rejected the message.",
  DELETED: "The carrier deleted the message before it was delivered.",
  UNKNOWN: "The carrier does not know what became of the message.",
};

// The built-in simulator's outcomes (lib/carriers/simulator/simulator-carrier.ts), by the destination's last digits.
const SIMULATOR_RECEIPT_ERRORS: Record<string, string> = {
  "001": "The phone simulator treats numbers ending in 0000 as undeliverable.",
  "069": "The phone simulator fails every message to numbers ending in 0001.",
  "002": "The phone simulator rejected the message.",
  "003": "The phone simulator let the message expire.",
};
const SIMULATOR_SUBMIT_ERRORS: Record<string, string> = {
  ESME_RINVDSTADR: "The phone simulator refuses numbers ending in 0004 at submit.",
  ESME_RTHROTTLED: "The phone simulator throttles numbers ending in 0003 once; the next attempt goes through.",
};

const VALIDITY_EXPIRED = "no delivery receipt within the validity period";

function capitalize(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}

interface SubmitError {
  code: string;
  name: string;
  text: string;
  simulated: boolean;
  /** The words that came with the code (the SMPP status name, or the worker's description). */
  words: string;
  gaveUpAfter?: number;
  nextAttemptAt?: string;
}

/** Reads `<code> <detail>[; gave up after N attempts | ; attempt N at <time>]`, or null for another shape. */
function parseSubmitError(details: string): SubmitError | null {
  const match = /^(\S+) ([\s\S]*?)(?:; gave up after (\d+) attempts|; attempt \d+ at (\S+))?$/.exec(details.trim());
  if (!match) return null;
  const [, code, rest, gaveUp, at] = match as unknown as [string, string, string, string?, string?];
  const simulated = /\(simulated\)/.test(rest);
  let name = /\bESME_R\w+/.exec(rest)?.[0] ?? "";
  let text: string | undefined;
  if (/^0x[0-9a-f]+$/i.test(code)) {
    const known = SMPP_STATUSES[parseInt(code, 16)];
    if (known) {
      name ||= known.name;
      text = known.text;
    }
    text ??= Object.values(SMPP_STATUSES).find((s) => s.name === name)?.text;
    text ??= `The carrier refused the message (${name || "SMPP error"} ${code}).`;
  } else if (WORKER_CODES[code]) {
    text = WORKER_CODES[code];
    name = code;
  } else {
    return null;
  }
  return {
    code,
    name,
    text,
    simulated,
    words: rest.trim(),
    gaveUpAfter: gaveUp ? Number(gaveUp) : undefined,
    nextAttemptAt: at,
  };
}

function submitCode(error: SubmitError): string {
  return error.name && error.name !== error.code ? `${error.name} (${error.code})` : error.code;
}

/** The fields of a receipt note (`id:… stat:UNDELIV err:001 text:…`), or null when it is not one. */
function parseReceipt(details: string): { id: string; stat: string; err: string } | null {
  const stat = /(?:^|\s)stat:(\S+)/i.exec(details)?.[1];
  if (!stat) return null;
  return {
    id: /(?:^|\s)id:(\S+)/i.exec(details)?.[1] ?? "",
    stat: stat.toUpperCase(),
    err: /(?:^|\s)err:(\S+)/i.exec(details)?.[1] ?? "",
  };
}

function explainReceipt(details: string, tone: Explanation["tone"]): Explanation | null {
  const receipt = parseReceipt(details);
  if (!receipt) return null;
  const title = RECEIPT_STATS[receipt.stat] ?? `The carrier reported the delivery state “${receipt.stat}”.`;
  const simulated = receipt.id.startsWith("sim-");
  const detail =
    (simulated ? SIMULATOR_RECEIPT_ERRORS[receipt.err] : undefined) ??
    (receipt.err && !/^0+$/.test(receipt.err) ? `The carrier's error code is ${receipt.err}.` : undefined);
  return { tone, title, detail, code: `stat:${receipt.stat}${receipt.err ? ` err:${receipt.err}` : ""}` };
}

function explainSubmit(error: SubmitError, outcome: "rejected" | "failed"): Explanation {
  const simulatorNote = error.simulated ? SIMULATOR_SUBMIT_ERRORS[error.name] : undefined;
  if (outcome === "failed") {
    const attempts = error.gaveUpAfter ? `after ${error.gaveUpAfter} attempts` : "after several attempts";
    return {
      tone: "error",
      title: `Parley gave up ${attempts}. ${error.text}`,
      detail:
        simulatorNote ??
        (WORKER_CODES[error.code] && error.words
          ? `The last attempt: ${error.words}.`
          : "Each attempt met a temporary refusal; the message was not sent."),
      code: submitCode(error),
    };
  }
  return {
    tone: "error",
    title: `${error.text} It was not sent.`,
    detail: simulatorNote ?? "The carrier refused it for good; sending it again as it is would be refused again.",
    code: submitCode(error),
  };
}

/** Why the message is in its state, or null when there is nothing to explain (delivered, on its way). */
export function explainStatus(input: ExplainInput): Explanation | null {
  const { status, sdrs } = input;
  const last = (wanted: string) => [...sdrs].reverse().find((s) => s.status === wanted);

  if (status === "rejected") {
    const record = last("rejected");
    const reason = input.rejectReason || record?.statusDetails.trim() || "";
    const known = REJECT_REASONS[reason];
    if (known) return { tone: "error", ...known, code: reason };
    if (record) {
      const submit = parseSubmitError(record.statusDetails);
      if (submit) return explainSubmit(submit, "rejected");
      const receipt = explainReceipt(record.statusDetails, "error");
      if (receipt) return receipt;
    }
    return { tone: "error", title: "The message was rejected and not sent.", code: reason || undefined };
  }

  if (status === "failed" || status === "undelivered" || status === "expired") {
    const record = last(status);
    const details = record?.statusDetails ?? "";
    if (status === "expired" && details.trim() === VALIDITY_UNSENT) {
      return {
        tone: "error",
        title: "The message's validity ran out before it could be sent, so Parley never sent it.",
        detail:
          "The send gave validitySeconds: a message still waiting in the queue (behind others from the same number, or outside the bulk window) when that time passes is not sent late.",
      };
    }
    if (status === "expired" && details.trim() === VALIDITY_EXPIRED) {
      return {
        tone: "error",
        title: "No delivery receipt arrived in time, so the message counts as expired.",
        detail:
          "The carrier took the message but never said whether the phone got it (MESSAGE_VALIDITY_HOURS, 48 h by default).",
      };
    }
    const submit = status === "failed" ? parseSubmitError(details) : null;
    if (submit) return explainSubmit(submit, "failed");
    const receipt = explainReceipt(details, "error");
    if (receipt) return receipt;
    const fallback: Record<string, string> = {
      failed: "The message failed.",
      undelivered: "The carrier could not deliver the message to the phone.",
      expired: "The message expired before it was delivered.",
    };
    return { tone: "error", title: fallback[status]!, detail: details || undefined };
  }

  if (status === "cancelled") {
    const record = last("cancelled");
    return {
      tone: "info",
      title: "The message was cancelled before it was sent.",
      detail: record?.statusDetails ? `${capitalize(record.statusDetails)}.` : undefined,
    };
  }

  if (status === "held") {
    const why = last("held")?.statusDetails;
    return {
      tone: "warning",
      title: "Held for review: part of a sudden burst of messages to unusual numbers (SMS pumping defence).",
      detail: `${why ? `${capitalize(why)}. ` : ""}An admin releases it (it then leaves as usual) or cancels it on the dashboard.`,
    };
  }

  if (status === "scheduled") {
    const until = /^until (\S+)/.exec(last("scheduled")?.statusDetails ?? "")?.[1];
    return {
      tone: "info",
      title: "A scheduled message: it joins the queue at its time.",
      detail: until ? `Scheduled for ${until}. It can be cancelled until then.` : "It can be cancelled until then.",
    };
  }

  if (status === "queued" || status === "sending" || status === "sent") {
    // A temporary refusal: the message waits for its next attempt.
    const latest = sdrs[sdrs.length - 1];
    if (latest?.status === "retry") {
      const submit = parseSubmitError(latest.statusDetails);
      return {
        tone: "warning",
        title: "The carrier refused the message for now; Parley will try again.",
        detail: submit
          ? ((submit.simulated ? SIMULATOR_SUBMIT_ERRORS[submit.name] : undefined) ?? submit.text)
          : latest.statusDetails,
        code: submit ? submitCode(submit) : undefined,
        retryAt: submit?.nextAttemptAt,
      };
    }
    if (status === "queued" && latest?.status === "queued" && latest.statusDetails.startsWith("bulk")) {
      return {
        tone: "info",
        title: "A bulk message: it waits behind ad hoc messages and leaves only inside the bulk window.",
        detail:
          "The window is 08:00–21:00 in the destination's local time unless the account's settings say otherwise.",
      };
    }
    return null;
  }

  if (status === "delivered") {
    const gaveUp = last("status_failed");
    if (gaveUp && !last("status_sent")) {
      return {
        tone: "warning",
        title: "Delivered, but the account's webhook did not accept the delivery-status event.",
        detail: gaveUp.statusDetails,
      };
    }
  }
  return null;
}
