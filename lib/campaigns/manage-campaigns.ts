import { ApiError } from "../api/api-error";
import { db } from "../db/client";
import { uuidv7 } from "../db/ids";
import { accountIdOf } from "../api/account-id";
import { assertAccount, type ApiPrincipal } from "../api/authenticate";
import { writeTransaction } from "../db/steps";
import { everySegment } from "../delivery/due-messages";
import { parseTags } from "../contacts/manage-contacts";
import { renderCannedReply } from "../canned-replies/render-canned-reply";
import { recordTransitions, sdrRow } from "../messaging/record-transitions";
import type { MessageChange, MessageGuard } from "../delivery/delivery-queries";
import type { SdrRow } from "../db/insert-rows";
import { validTn, withPlus } from "../messaging/phone-number";
import { scheduledTime } from "../messaging/send-schema";
import { sendMessages } from "../messaging/send-message";
import type { Sender } from "../messaging/sender";
import { CAMPAIGN_WAITING_STATUSES, WAITING_STATUSES } from "../messaging/message-status";
import { campaignInputSchema, type CampaignAction, type CampaignAudience, type CampaignView } from "./campaign-schema";
import { campaignRow, getCampaign } from "./campaign-progress";
import { giveBackDailyShare, takeDailyShare, warnIfDue } from "../guard/daily-limits";
import { sendSettings } from "../guard/send-settings";
import { countSegments } from "../segments/count-segments";

export { getCampaign, listCampaigns } from "./campaign-progress";

// Campaigns (docs/CAMPAIGNS.md): one text to a list of phones, from one or several of the account's numbers in
// turn. Creating one stores every message before answering, through the API's own send path: bulk (the bulk lane,
// never the ad hoc share, only inside the bulk window in each phone's time zone), opted-out phones refused and
// counted, a `sendAt` shared by all. What a campaign did is counted from its messages. Pausing holds its waiting
// messages (scheduled, with no time); resuming gives them back to the queue (or to the campaign's time); cancelling
// cancels them.

/** Sends stored at once while a campaign is created: the group commit batches them. */
const SEND_CONCURRENCY = 8;
/** Messages one transition moves (each is one statement per chunk, one SDR insert). */
const BATCH = 1000;

interface Recipient {
  /** As given, or the contact's number. */
  number: string;
  name: string;
}

function invalid(detail: string, field: string): ApiError {
  return new ApiError("InvalidRequest", { detail, field });
}

function parseCampaignInput(raw: unknown) {
  const parsed = campaignInputSchema.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    const field = issue.path.map(String).join(".") || "body";
    throw invalid(`'${field}' ${issue.message}`, field);
  }
  return parsed.data;
}

async function audienceOf(accountId: string, audience: CampaignAudience): Promise<Recipient[]> {
  if ("numbers" in audience) {
    const names = new Map<string, string>();
    const digits = audience.numbers.map((n) => validTn(n)).filter((d): d is string => d !== null);
    for (const c of await db().contact.findMany({
      where: { accountId, number: { in: digits } },
      select: { number: true, name: true },
    })) {
      names.set(c.number, c.name);
    }
    return audience.numbers.map((number) => ({ number, name: names.get(validTn(number) ?? "") ?? "" }));
  }
  const tag = audience.tag.toLowerCase();
  const contacts = await db().contact.findMany({
    where: { accountId, NOT: { tags: "[]" } },
    select: { number: true, name: true, tags: true },
    orderBy: { number: "asc" },
  });
  // The tag must be a whole tag, in any case.
  const tagged = contacts.filter((c) => parseTags(c.tags).some((t) => t.toLowerCase() === tag));
  if (tagged.length === 0) throw invalid(`no contact has the tag '${audience.tag}'`, "audience.tag");
  return tagged.map((c) => ({ number: c.number, name: c.name }));
}

/**
 * Creates a campaign and stores its messages (one a phone, from its numbers in turn), then answers it with its
 * counts. Throws InvalidRequest for a bad field, a number that is not the account's, a tag nobody has, an unknown
 * variable or a time out of range.
 */
export async function createCampaign(input: {
  accountId: string;
  raw: unknown;
  sender: Sender;
  createdBy: string;
  requestId: string;
}): Promise<CampaignView> {
  const { accountId } = input;
  const request = parseCampaignInput(input.raw);
  const now = new Date();
  const sendAt = request.sendAt ? scheduledTime({ sendAt: request.sendAt }, now.getTime()) : null;
  const fromNumbers = request.fromNumbers.map((n) => validTn(n));
  if (fromNumbers.some((n) => n === null)) throw invalid("'fromNumbers' must be valid phone numbers", "fromNumbers");
  const owned = new Set(
    (
      await db().phoneNumber.findMany({
        where: { accountId, number: { in: fromNumbers as string[] } },
        select: { number: true },
      })
    ).map((n) => n.number),
  );
  const notOwned = (fromNumbers as string[]).filter((n) => !owned.has(n));
  if (notOwned.length > 0) {
    throw invalid(
      `'fromNumbers' ${notOwned.map(withPlus).join(", ")} is not one of the account's numbers`,
      "fromNumbers",
    );
  }
  const from = [...new Set(fromNumbers as string[])];
  // Every variable must be one a campaign knows: an unknown one would be sent as written to every phone.
  const unknown = /\{\{\s*([^}]*?)\s*\}\}/.exec(
    renderCannedReply(request.body, { contactName: "x", accountNumber: "1" }),
  );
  if (unknown) {
    throw invalid(
      `'body' uses {{${unknown[1]}}}, which is not a variable; use {{contact.name}}, {{contact.first_name}} or {{account.number}}`,
      "body",
    );
  }
  const recipients = await audienceOf(accountId, request.audience);
  if (recipients.length > 10_000) throw invalid("'audience' has more than 10,000 phones", "audience");

  // One send per (number, text): texts differ by the contact's name; a repeated phone is refused by its send.
  const groups = new Map<string, { from: string; body: string; to: string[] }>();
  recipients.forEach((r, i) => {
    const number = from[i % from.length]!;
    const body = renderCannedReply(request.body, { contactName: r.name, accountNumber: number });
    const key = `${number}\n${body}`;
    const group = groups.get(key) ?? { from: number, body, to: [] };
    group.to.push(r.number);
    groups.set(key, group);
  });
  const sends = [...groups.values()].flatMap((g) =>
    Array.from({ length: Math.ceil(g.to.length / 1000) }, (_, i) => ({
      ...g,
      to: g.to.slice(i * 1000, i * 1000 + 1000),
    })),
  );
  // Across groups the same phone must still be sent to once: the first group keeps it.
  const seen = new Set<string>();
  for (const send of sends) {
    send.to = send.to.filter((n) => {
      const key = validTn(n) ?? n;
      if (seen.has(key)) return false;
      seen.add(key);
      return true;
    });
  }
  // The daily limits' share of the whole audience is taken at once: a campaign that would pass a limit is refused
  // before anything is stored, and one that fits cannot be cut short by other sends. What its sends did not use
  // (opted-out phones, say) is given back at the end, all of it if storing fails.
  const settings = await sendSettings(accountId);
  const take = await takeDailyShare({
    accountId,
    settings,
    messages: sends.reduce((sum, send) => sum + send.to.length, 0),
    segments: sends.reduce((sum, send) => sum + countSegments(send.body).numSegments * send.to.length, 0),
    now,
  });
  const used = { messages: 0, segments: 0, first: null as string | null };
  try {
    const stored = await storeCampaign();
    if (take && used.first) await warnIfDue(take, settings, used.first, now);
    return stored;
  } finally {
    const unused = take && {
      ...take,
      messages: take.messages - used.messages,
      segments: take.segments - used.segments,
    };
    if (unused && (unused.messages > 0 || unused.segments > 0)) await giveBackDailyShare(unused);
  }

  async function storeCampaign(): Promise<CampaignView> {
    const campaign = await db().campaign.create({
      data: {
        id: uuidv7(now.getTime()),
        accountId,
        name: request.name,
        body: request.body,
        fromNumbers: JSON.stringify(from),
        audience: JSON.stringify(request.audience),
        status: "running",
        sendAt,
        recipients: recipients.length,
        createdBy: input.createdBy,
        createdAt: now,
      },
    });

    let next = 0;
    const worker = async () => {
      for (let i = next++; i < sends.length; i = next++) {
        const send = sends[i]!;
        if (send.to.length === 0) continue;
        const result = await sendMessages({
          sender: input.sender,
          request: {
            accountId,
            from: send.from,
            toArray: send.to,
            body: send.body,
            bulk: true,
            userType: "campaign",
            userId: campaign.id,
          },
          requestId: input.requestId,
          campaignId: campaign.id,
          ...(sendAt ? { sendAt } : {}),
          shareTaken: take !== null,
        });
        for (const entry of result.messageInfo) {
          if (entry.status !== "accepted") continue;
          used.first ??= entry.messageId;
          used.messages += 1;
          used.segments += entry.numSegments;
        }
      }
    };
    await Promise.all(Array.from({ length: SEND_CONCURRENCY }, worker));
    return getCampaign({ accountId, campaignId: campaign.id });
  }
}

/** The ids of the campaign's messages in these statuses (with no part handed to the carrier). */
async function waitingIds(
  campaignId: string,
  where: Record<string, unknown>,
): Promise<{ id: string; accountId: string; referenceId: string | null; numSegments: number; bulk: boolean }[]> {
  return db().message.findMany({
    where: { campaignId, partsSubmitted: 0, ...where },
    select: { id: true, accountId: true, referenceId: true, numSegments: true, bulk: true },
  });
}

type WaitingMessage = Awaited<ReturnType<typeof waitingIds>>[number];

/** One change to the campaign's messages, a transaction a batch, each message's SDRs with its change. */
async function moveInBatches(
  messages: WaitingMessage[],
  change: { set: MessageChange; onlyFrom: MessageGuard; sdrs: (m: WaitingMessage) => SdrRow[] },
  at: Date,
): Promise<void> {
  for (let i = 0; i < messages.length; i += BATCH) {
    const batch = messages.slice(i, i + BATCH);
    await writeTransaction(() =>
      recordTransitions({
        changes: [{ ids: batch.map((m) => m.id), set: change.set, onlyFrom: change.onlyFrom }],
        sdrs: batch.flatMap(change.sdrs),
        at,
      }),
    );
  }
}

/**
 * Pause holds the campaign's waiting messages (they become `scheduled` with no time, an SDR each saying so); resume
 * gives them back (to the queue, or to the campaign's time when that is still ahead); cancel cancels every message
 * not yet sent. Messages already handed to the carrier go on. Answers the campaign after.
 */
export async function changeCampaign(input: {
  accountId: string;
  campaignId: string;
  action: CampaignAction;
  by: string;
}): Promise<CampaignView> {
  const row = await campaignRow(input.accountId, input.campaignId);
  const at = new Date();
  const refuse = (why: string) => new ApiError("InvalidRequest", { detail: why, field: "action" });
  // Pause and resume leave held messages to their review (held-messages.ts); cancel takes them too.
  const stillWaiting = { status: CAMPAIGN_WAITING_STATUSES, partsSubmitted: 0 };
  if (row.status === "cancelled") throw refuse("the campaign is cancelled");
  if (input.action === "pause") {
    if (row.status === "paused") throw refuse("the campaign is paused already");
    await db().campaign.update({ where: { id: row.id }, data: { status: "paused" } });
    await moveInBatches(
      await waitingIds(row.id, { status: { in: CAMPAIGN_WAITING_STATUSES } }),
      {
        set: { status: "scheduled", sendAt: null },
        onlyFrom: stillWaiting,
        sdrs: (m) => [
          sdrRow(m.id, m.accountId, "scheduled", at.getTime(), { statusDetails: `campaign paused by ${input.by}` }),
        ],
      },
      at,
    );
  } else if (input.action === "resume") {
    if (row.status !== "paused") throw refuse("the campaign is not paused");
    await db().campaign.update({ where: { id: row.id }, data: { status: "running" } });
    const later = row.sendAt && row.sendAt.getTime() > at.getTime() ? row.sendAt : null;
    await moveInBatches(
      await waitingIds(row.id, { status: "scheduled", sendAt: null }),
      {
        set: later ? { sendAt: later } : { status: "queued" },
        onlyFrom: { status: ["scheduled"], partsSubmitted: 0 },
        sdrs: (m) => [
          later
            ? sdrRow(m.id, m.accountId, "scheduled", at.getTime(), { statusDetails: `until ${later.toISOString()}` })
            : sdrRow(m.id, m.accountId, "queued", at.getTime(), { statusDetails: m.bulk ? "bulk" : "" }),
        ],
      },
      at,
    );
  } else {
    await db().campaign.update({ where: { id: row.id }, data: { status: "cancelled" } });
    await moveInBatches(
      await waitingIds(row.id, { status: { in: WAITING_STATUSES } }),
      {
        set: { status: "cancelled", nextAttemptAt: null },
        onlyFrom: { status: WAITING_STATUSES, partsSubmitted: 0 },
        sdrs: (m) => everySegment(m, "cancelled", `campaign cancelled by ${input.by}`, at),
      },
      at,
    );
  }
  return getCampaign({ accountId: input.accountId, campaignId: row.id });
}

/** /v3/campaigns names its account as a send does: `accountId`, required, the key's own (403 otherwise). */
export function campaignAccount(principal: ApiPrincipal, raw: unknown): { accountId: string; rest: unknown } {
  if (typeof raw !== "object" || raw === null || Array.isArray(raw)) {
    throw new ApiError("InvalidRequest", { detail: "the request body must be a JSON object" });
  }
  const { accountId: named, ...rest } = raw as Record<string, unknown>;
  const accountId = accountIdOf(named);
  assertAccount(principal, accountId);
  return { accountId, rest };
}
