import { ApiError } from "../api/api-error";
import { assertSenderAccount, type Sender } from "./sender";
import { db } from "../db/client";
import { hotRead } from "../db/hot-read";
import { numberOwnerQuery } from "../numbers/number-owner-queries";
import { env } from "../env";
import { uuidv7 } from "../db/ids";
import { commitSendWrite, configureSendCommits, type SendWrite } from "../db/group-commit";
import { countSegments } from "../segments/count-segments";
import { AUTO_BULK_DETAIL, autoBulkRule, sameTextHash } from "../throttle/auto-bulk";
import { sameTextCounter } from "../throttle/same-text-counter";
import { tnDigits, validTn, withPlus } from "./phone-number";
import { isoWithOffset } from "./time-format";
import { scheduledTime, type SendRequest } from "./send-schema";
import { smartEncode } from "../segments/smart-encoding";
import type { SegmentInfo } from "../segments/count-segments";
import type { IdempotencyClaim } from "./idempotency";
import type { MessageInfo, SendResult } from "./message-serializers";
import { footerDue, withFooter } from "../opt/append-footer";
import { readOptStates, optStatusOf, type DestinationOpt } from "../opt/read-opt-states";
import { readOptTexts } from "../opt/opt-settings";
import { attachConversations } from "../conversations/attach-conversations";
import { metrics } from "../metrics/define-metrics";
import { announceChanges } from "../realtime/announce-changes";
import { processSingleton } from "../process-singletons";
import { checkOwnMedia } from "../media/media-records";
import { forgetSendSettings, sendSettings, type SendSettings } from "../guard/send-settings";
import { destinationFacts } from "../guard/destination-facts";
import { burstHolds } from "../guard/burst-hold";
import { giveBackDailyShare, takeDailyShare, warnIfDue } from "../guard/daily-limits";

// The group commit counts automatic bulk by this rule in the send's own transaction, and wakes the live view after
// each batch: both are the sender's business, handed to lib/db before the first write.
configureSendCommits({ sameText: autoBulkRule, afterBatch: announceChanges });

export type RejectReason =
  "FromNotOwned" | "InvalidDestination" | "DuplicateDestination" | "CountryNotAllowed" | "OptedOut";
export type { MessageInfo, SendResult };

// Which account holds a number, read at most once per API_KEY_CACHE_SECONDS per process (like keys): a number
// removed from an account stops being usable within that time.
// One per process: a number released through the portal must be forgotten by /v3/messages at once.
const numberOwners = processSingleton(
  "numberOwners",
  () => new Map<string, { accountId: string | null; checkedAt: number }>(),
);

async function ownsNumber(accountId: string, digits: string): Promise<boolean> {
  const now = Date.now();
  const hit = numberOwners.get(digits);
  if (hit && now - hit.checkedAt < env().API_KEY_CACHE_SECONDS * 1000) return hit.accountId === accountId;
  // A prepared statement on the send path's hot connection: Prisma's findUnique cost about a millisecond of the
  // main thread, paid on every send from a number not seen in the last API_KEY_CACHE_SECONDS.
  const [row] = await hotRead<{ accountId: string }>((dialect) => numberOwnerQuery(dialect, digits));
  if (numberOwners.size > 100_000) numberOwners.clear();
  numberOwners.set(digits, { accountId: row?.accountId ?? null, checkedAt: now });
  return row?.accountId === accountId;
}

/** Forgets what this process knows of a number's owner: it was just provisioned or released here. */
export function forgetNumberOwner(digits: string): void {
  numberOwners.delete(digits);
  // The countries of an account's numbers are its default allowed countries.
  forgetSendSettings();
}

/** One destination of a send as planned: its refusal, if any, and the text it gets. */
interface PlannedEntry {
  destination: string;
  digits: string | null;
  reason: RejectReason | null;
  optStatus: ReturnType<typeof optStatusOf>;
  /** Whether the opt-out footer goes with this message. */
  footer: boolean;
  body: string;
  segments: SegmentInfo;
  numSegments: number;
}

/** What a send would do, without storing anything: POST /v3/messages/preview shows it, sendMessages stores it. */
export interface SendPlan {
  from: string;
  fromOwned: boolean;
  isMms: boolean;
  /** The text before any footer, after smart encoding. */
  body: string;
  /** The look-alike characters smart encoding replaced. */
  replaced: string[];
  sendAt: Date | null;
  /** The account's send settings (null: the `from` is not the account's, nothing else is read). */
  settings: SendSettings | null;
  optLogic: boolean;
  optStates: Map<string, DestinationOpt>;
  entries: PlannedEntry[];
}

/**
 * Checks a send request against the account's numbers, opt-outs and settings and works out each destination's
 * text (smart encoding, the opt-out footer) and refusal. Request errors (a `from` that is no number, a bad
 * `sendAt`) throw.
 */
export async function planSend(request: SendRequest, now: Date, scheduled?: Date): Promise<SendPlan> {
  const from = validTn(request.from);
  if (from === null) throw new ApiError("InvalidNumber");
  // A campaign's time was checked once, when it was created: its later sends keep it even past the 60 s minimum.
  const sendAt = scheduled ?? scheduledTime(request, now.getTime());
  const fromOwned = await ownsNumber(request.accountId, from);
  const destinations = request.to !== undefined ? [request.to] : request.toArray!;
  const isMms = (request.media ?? []).length > 0;
  const settings = fromOwned ? await sendSettings(request.accountId) : null;
  const smart = request.smartEncoding ?? settings?.smartEncoding ?? false;
  const { text: body, replaced } = smart ? smartEncode(request.body ?? "") : { text: request.body ?? "", replaced: [] };
  const segments = countSegments(body);
  const optLogic = request.optLogic ?? false;

  // Opt processing: a destination that opted out of this account is refused whatever optLogic says (the decision);
  // with optLogic, the footer goes with the first message to a destination and again after 30 days.
  const parsed = destinations.map((destination) => validTn(destination));
  const optStates = fromOwned
    ? await readOptStates(request.accountId, [...new Set(parsed.filter((d): d is string => d !== null))])
    : new Map<string, DestinationOpt>();
  let footer: string | null = null;
  if (optLogic && fromOwned) {
    const due = parsed.some(
      (d) => d !== null && optStates.get(d)?.status !== "out" && footerDue(optStates.get(d)?.lastFooterAt, now),
    );
    if (due) footer = (await readOptTexts(db(), request.accountId))?.footer ?? null;
  }
  const footed = footer === null ? null : withFooter(body, footer);
  const footedSegments = footed === null ? segments : countSegments(footed);

  const seen = new Set<string>();
  const entries = destinations.map((destination, index): PlannedEntry => {
    const digits = parsed[index] ?? null;
    const opt = digits === null ? undefined : optStates.get(digits);
    let reason: RejectReason | null = null;
    if (!fromOwned) reason = "FromNotOwned";
    else if (digits === null) reason = "InvalidDestination";
    else if (seen.has(digits)) reason = "DuplicateDestination";
    else if (settings?.allowedCountries && !settings.allowedCountries.has(destinationFacts(digits).country)) {
      reason = "CountryNotAllowed";
    } else if (opt?.status === "out") reason = "OptedOut";
    if (digits !== null) seen.add(digits);
    // The text as sent: the response, the listing, the SDRs and the carrier all see the footer and its segments.
    const footerNow = footed !== null && reason === null && footerDue(opt?.lastFooterAt, now);
    const sentSegments = footerNow ? footedSegments : segments;
    return {
      destination,
      digits,
      reason,
      optStatus: optStatusOf(optLogic, opt),
      footer: footerNow,
      body: footerNow ? footed : body,
      segments: sentSegments,
      numSegments: isMms ? 1 : sentSegments.numSegments,
    };
  });
  return { from, fromOwned, isMms, body, replaced, sendAt, settings, optLogic, optStates, entries };
}

/**
 * POST /v3/messages. One message per destination, persisted with its `accepted` and `queued` (or `scheduled`)
 * SDRs (or its `rejected` SDR) in one transaction before the answer is built. Rejected destinations are kept too,
 * so every messageId a client is given can be listed and has SDRs.
 */
export async function sendMessages(input: {
  sender: Sender;
  request: SendRequest;
  requestId: string;
  idempotency?: IdempotencyClaim<SendResult>;
  /** The campaign the messages belong to (lib/campaigns). */
  campaignId?: string;
  /** The campaign's time, checked when it was created (instead of the request's sendAt). */
  sendAt?: Date;
  /** The daily limits' share was taken for the whole campaign already (lib/campaigns): none is taken here. */
  shareTaken?: boolean;
}): Promise<SendResult> {
  const { sender, request } = input;
  assertSenderAccount(sender, request.accountId);
  const now = new Date();
  const plan = await planSend(request, now, input.sendAt);
  const { from, fromOwned, isMms, sendAt } = plan;
  const media = request.media ?? [];
  // Parley's own media URLs (POST /v3/media) must be the account's; other URLs are fetched when the message is
  // prepared for its route (lib/media/prepare-outbound.ts), and what cannot be fetched or fitted fails the message.
  if (media.length > 0) await checkOwnMedia(request.accountId, media);
  // The decisions: bulk defaults to false for one destination and true for two or more; and the same text from one
  // account to more than 20 destinations within 10 minutes is bulk whatever the request said. That count is shared
  // by the deployment (lib/throttle/same-text-counter.ts): in Redis, before the rows are built, or in the database,
  // where the group commit counts in the batch's own transaction and marks the write bulk there (the answer follows
  // below).
  const sameText = fromOwned
    ? {
        accountId: request.accountId,
        textHash: sameTextHash(plan.body, media),
        destinations: plan.entries.length,
        at: now.getTime(),
      }
    : null;
  const counter = sameTextCounter();
  const autoBulk = sameText !== null && (await counter.countBeforeWrite(sameText));
  const bulk = autoBulk || (request.bulk ?? plan.entries.length > 1);
  const dateCreated = isoWithOffset(now);
  const mediaJson = JSON.stringify(media);
  // A scheduled message waits with status `scheduled` until its time; validity counts from when it joins the queue.
  const waiting = sendAt === null ? "queued" : "scheduled";
  const queuedAt = sendAt ?? now;
  const validUntil =
    request.validitySeconds === undefined ? null : new Date(queuedAt.getTime() + request.validitySeconds * 1000);
  // Guard rails (lib/guard): the daily limits refuse the whole send (taking nothing) when it would pass one, and are
  // given back if the send then fails; a burst to unusual destinations is held for review (counted only for a send
  // the limits let through).
  const accepted = plan.entries.filter((e) => e.reason === null);
  const take =
    plan.settings && !input.shareTaken
      ? await takeDailyShare({
          accountId: request.accountId,
          settings: plan.settings,
          messages: accepted.length,
          segments: accepted.reduce((sum, e) => sum + e.numSegments, 0),
          now,
        })
      : null;
  const giveBack = async (error: unknown): Promise<never> => {
    if (take) await giveBackDailyShare(take);
    throw error;
  };
  const held = plan.settings
    ? await burstHolds({
        accountId: request.accountId,
        settings: plan.settings,
        entries: plan.entries.map((e) => (e.reason === null ? e.digits : null)),
        now,
      }).catch(giveBack)
    : new Map<number, string>();

  const footersSent: NonNullable<SendWrite["optStates"]> = [];
  const write: SendWrite = { messages: [], sdrs: [], optStates: footersSent };
  const messageInfo: MessageInfo[] = [];

  for (const [index, entry] of plan.entries.entries()) {
    const messageId = uuidv7(now.getTime());
    const { digits, reason } = entry;
    const holdNote = held.get(index);
    if (entry.footer) footersSent.push({ accountId: request.accountId, number: digits!, lastFooterAt: now });
    const stored = digits ?? tnDigits(entry.destination) ?? entry.destination.slice(0, 64);
    write.messages.push({
      id: messageId,
      accountId: request.accountId,
      direction: "outbound",
      messageType: isMms ? "mms" : "sms",
      fromNumber: from,
      toNumber: stored,
      body: entry.body,
      media: mediaJson,
      // An MMS leaves once its media are fetched and fitted to its route.
      mediaState: isMms && reason === null ? "pending" : "",
      numSegments: entry.numSegments,
      encoding: entry.segments.encoding,
      status: reason ? "rejected" : holdNote ? "held" : waiting,
      rejectReason: reason,
      conversational: request.conversational ?? false,
      bulk,
      optLogic: plan.optLogic,
      optStatus: entry.optStatus,
      referenceId: request.referenceId ?? null,
      userId: request.userId ?? null,
      userType: request.userType ?? null,
      sendAt: reason ? null : sendAt,
      validUntil: reason ? null : validUntil,
      campaignId: input.campaignId ?? null,
      createdAt: now,
      updatedAt: now,
    });
    const referenceId = request.referenceId ?? null;
    const sdr = (status: string, statusDetails: string, ref: string | null = null) =>
      write.sdrs.push({
        messageId,
        accountId: request.accountId,
        status,
        statusDetails,
        referenceId: ref,
        createdAt: now,
      });
    if (reason) sdr("rejected", reason, referenceId);
    else {
      sdr("accepted", "", referenceId);
      // The queued SDR says "bulk" (automatic bulk patches it in the commit); a scheduled one says when; a held
      // one why (its release writes the queued or scheduled SDR).
      if (holdNote) sdr("held", holdNote);
      else if (sendAt === null) sdr("queued", autoBulk ? AUTO_BULK_DETAIL : bulk ? "bulk" : "");
      else sdr("scheduled", `until ${sendAt.toISOString()}`);
    }
    messageInfo.push({
      messageId,
      dateCreated,
      to: digits !== null ? withPlus(digits) : entry.destination,
      body: entry.body,
      numSegments: entry.numSegments,
      optStatus: entry.optStatus,
      status: reason ? "rejected" : "accepted",
      reason: reason ?? "",
    });
  }

  // The answer echoes the request, with the text as smart encoding made it.
  const shown = plan.replaced.length > 0 ? { ...request, body: plan.body } : request;
  const result: SendResult = { request: shown, bulk, messageInfo, refusal: fromOwned ? null : "FromNotOwned" };
  if (input.idempotency) write.idempotency = input.idempotency.record(result);
  if (sameText !== null) {
    // The answer stored for the Idempotency-Key if the commit's count makes this send bulk.
    counter.countInCommit(write, sameText, () => input.idempotency?.record({ ...result, bulk: true }).responseBody);
  }
  const committed = await (async () => {
    if (request.conversational && fromOwned) await attachConversations(request.accountId, from, write.messages, now);
    return commitSendWrite(write);
  })().catch(giveBack);
  const madeBulk = committed.autoBulk;
  countSends(messageInfo);
  const firstAccepted = messageInfo.find((m) => m.status === "accepted");
  if (take && plan.settings && firstAccepted) await warnIfDue(take, plan.settings, firstAccepted.messageId, now);
  return madeBulk ? { ...result, bulk: true } : result;
}

/** The sends counters, once the messages are committed. */
function countSends(entries: MessageInfo[]): void {
  const m = metrics();
  const accepted = entries.filter((e) => e.status === "accepted").length;
  if (accepted > 0) m.messagesAccepted.inc(accepted);
  for (const entry of entries) if (entry.status === "rejected") m.messagesRejected.inc({ reason: entry.reason });
}
