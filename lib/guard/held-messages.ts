import { ApiError } from "../api/api-error";
import { db } from "../db/client";
import { writeTransaction } from "../db/steps";
import { everySegment } from "../delivery/due-messages";
import { recordTransitions, sdrRow } from "../messaging/record-transitions";
import { withPlus } from "../messaging/phone-number";
import { localDay } from "../accounts/local-time";
import { destinationFacts } from "./destination-facts";
import { giveBackDailyUsageSteps } from "./guard-queries";
import { sendSettings } from "./send-settings";

// Messages the pumping defence held (burst-hold.ts), as the dashboard reviews them: grouped by the prefix their burst
// was counted in, each group released (its messages join the queue, or wait for their sendAt) or cancelled. Both are
// compare-and-set transitions from `held`, so two admins reviewing at once move each message once.

export interface HeldGroup {
  /** Country code and first digits, as "+23276". */
  prefix: string;
  country: string;
  messages: number;
  segments: number;
  /** A few of the destinations, for the reviewer to recognise the range. */
  sample: string[];
  firstAt: string;
  lastAt: string;
}

const MAX_READ = 20_000;

async function heldRows(accountId: string) {
  return db().message.findMany({
    where: { accountId, status: "held" },
    select: {
      id: true,
      accountId: true,
      referenceId: true,
      toNumber: true,
      numSegments: true,
      bulk: true,
      sendAt: true,
      campaignId: true,
      createdAt: true,
    },
    orderBy: { createdAt: "asc" },
    take: MAX_READ,
  });
}

/** The account's held messages by prefix, the largest group first. */
export async function listHeldGroups(accountId: string): Promise<HeldGroup[]> {
  const groups = new Map<string, HeldGroup>();
  for (const row of await heldRows(accountId)) {
    const facts = destinationFacts(row.toNumber);
    const key = withPlus(facts.prefix);
    const at = row.createdAt.toISOString();
    const group = groups.get(key) ?? {
      prefix: key,
      country: facts.country,
      messages: 0,
      segments: 0,
      sample: [],
      firstAt: at,
      lastAt: at,
    };
    group.messages += 1;
    group.segments += row.numSegments;
    if (group.sample.length < 3) group.sample.push(withPlus(row.toNumber));
    group.lastAt = at;
    groups.set(key, group);
  }
  return [...groups.values()].sort((a, b) => b.messages - a.messages || a.prefix.localeCompare(b.prefix));
}

export type HeldAction = "release" | "cancel";

/**
 * Releases or cancels the account's held messages of one prefix ("+23276"). Returns how many changed; NotFound when
 * none is held there (already reviewed).
 */
export async function reviewHeld(input: {
  accountId: string;
  prefix: string;
  action: HeldAction;
  by: string;
}): Promise<{ prefix: string; action: HeldAction; messages: number }> {
  const prefix = input.prefix.replace(/^\+/, "");
  const rows = (await heldRows(input.accountId)).filter((r) => destinationFacts(r.toNumber).prefix === prefix);
  if (rows.length === 0) {
    throw new ApiError("NotFound", { detail: `no message to ${withPlus(prefix)}… is held`, field: "prefix" });
  }
  const at = new Date();
  const onlyFrom = { status: ["held"], partsSubmitted: 0 };
  const settings = await sendSettings(input.accountId);
  const campaignIds = [...new Set(rows.map((r) => r.campaignId).filter((id): id is string => id !== null))];
  const paused = new Set(
    campaignIds.length === 0
      ? []
      : (
          await db().campaign.findMany({
            where: { id: { in: campaignIds }, status: "paused" },
            select: { id: true },
          })
        ).map((c) => c.id),
  );
  const unmoved = await writeTransaction(function* () {
    if (input.action === "cancel") {
      const unmovedIds = yield* recordTransitions({
        changes: [{ ids: rows.map((r) => r.id), set: { status: "cancelled", nextAttemptAt: null }, onlyFrom }],
        sdrs: rows.flatMap((r) => everySegment(r, "cancelled", `cancelled after review by ${input.by}`, at)),
        at,
      });
      // A burst that was rightly stopped must not use up the day's limits: its share is given back.
      if (settings.dailyMessageLimit > 0 || settings.dailySegmentLimit > 0) {
        const byDay = new Map<string, { messages: number; segments: number }>();
        for (const r of rows.filter((row) => !unmovedIds.has(row.id))) {
          const day = localDay(r.createdAt, settings.timeZone).date;
          const share = byDay.get(day) ?? { messages: 0, segments: 0 };
          share.messages += 1;
          share.segments += r.numSegments;
          byDay.set(day, share);
        }
        for (const [day, share] of byDay) {
          yield* giveBackDailyUsageSteps({ accountId: input.accountId, day, ...share });
        }
      }
      return unmovedIds;
    }
    // A held scheduled message waits for its time again, one of a paused campaign waits for its resume (as the
    // campaign's other messages do); the others join the queue now.
    const note = `released after review by ${input.by}`;
    const pausedOnes = rows.filter((r) => r.campaignId !== null && paused.has(r.campaignId));
    const later = rows.filter((r) => !pausedOnes.includes(r) && r.sendAt !== null && r.sendAt.getTime() > at.getTime());
    const now = rows.filter((r) => !later.includes(r) && !pausedOnes.includes(r));
    return yield* recordTransitions({
      changes: [
        { ids: now.map((r) => r.id), set: { status: "queued" }, onlyFrom },
        { ids: later.map((r) => r.id), set: { status: "scheduled" }, onlyFrom },
        { ids: pausedOnes.map((r) => r.id), set: { status: "scheduled", sendAt: null }, onlyFrom },
      ].filter((c) => c.ids.length > 0),
      sdrs: [
        ...now.map((r) => sdrRow(r.id, r.accountId, "queued", at.getTime(), { statusDetails: note })),
        ...later.map((r) =>
          sdrRow(r.id, r.accountId, "scheduled", at.getTime(), {
            statusDetails: `until ${r.sendAt!.toISOString()}; ${note}`,
          }),
        ),
        ...pausedOnes.map((r) =>
          sdrRow(r.id, r.accountId, "scheduled", at.getTime(), { statusDetails: `${note}; campaign paused` }),
        ),
      ],
      at,
    });
  });
  return { prefix: withPlus(prefix), action: input.action, messages: rows.length - unmoved.size };
}
