import { ApiError } from "../api/api-error";
import { localDay } from "../accounts/local-time";
import { readTransaction, writeTransaction } from "../db/steps";
import { logger } from "../log";
import { enqueueLimitWarningSteps } from "../webhooks/enqueue-events";
import { giveBackDailyUsageSteps, markWarnedSteps, readDailyUsageSteps, takeDailyUsageSteps } from "./guard-queries";
import type { SendSettings } from "./send-settings";
import { WARN_SHARE as WARN_AT, type UsageOfDay } from "./limit-warnings";

// Daily limits on an account's accepted messages and segments, by the account's own day. A send takes its share in
// one statement before its rows are committed (the statement refuses what would pass a limit, so concurrent sends
// from any process never take more than the limit between them), gives it back if its commit fails, and once
// committed writes the 80 % warning (a `limit-warning` webhook event, once per limit and day). A send past a limit
// is refused whole with DailyLimitReached; scheduled and campaign messages count on the day they are accepted.

export interface DailyTake {
  accountId: string;
  day: string;
  messages: number;
  segments: number;
  after: { messages: number; segments: number };
}

/** When the account's day after `now` starts. */
export function nextDayStart(now: Date, timeZone: string): Date {
  const today = localDay(now, timeZone);
  return localDay(new Date(today.start.getTime() + 26 * 3600_000), timeZone).start;
}

function refusal(input: {
  limit: "messages" | "segments";
  max: number;
  used: number;
  asked: number;
  settings: SendSettings;
  now: Date;
  day: string;
}): ApiError {
  const { limit, max, used, asked } = input;
  const left = Math.max(0, max - used);
  const resetsAt = nextDayStart(input.now, input.settings.timeZone);
  const noun = limit === "messages" ? "messages" : "segments";
  return new ApiError("DailyLimitReached", {
    detail:
      `the account's daily limit of ${max.toLocaleString("en-US")} ${noun} allows ${left.toLocaleString("en-US")} more ` +
      `today (${input.day}, ${input.settings.timeZone}); this send has ${asked.toLocaleString("en-US")}. ` +
      `The limit starts again at ${resetsAt.toISOString()}`,
    data: { limit, max, used, asked, day: input.day, resetsAt: resetsAt.toISOString() },
  });
}

interface ShareAsked {
  accountId: string;
  settings: SendSettings;
  messages: number;
  segments: number;
  now: Date;
}

const segmentsOver = (input: ShareAsked, used: number) => ({
  limit: "segments" as const,
  max: input.settings.dailySegmentLimit,
  used,
  asked: input.segments,
});

/** The refusal a share would meet against the day's usage as it stands (null: it fits). */
async function roomLeft(input: ShareAsked, day: string): Promise<ApiError | null> {
  const { settings, messages, segments } = input;
  const used = await readTransaction(() => readDailyUsageSteps(input.accountId, day));
  const base = { settings, now: input.now, day };
  if (settings.dailyMessageLimit > 0 && used.messages + messages > settings.dailyMessageLimit) {
    return refusal({
      ...base,
      limit: "messages",
      max: settings.dailyMessageLimit,
      used: used.messages,
      asked: messages,
    });
  }
  if (settings.dailySegmentLimit > 0 && used.segments + segments > settings.dailySegmentLimit) {
    return refusal({ ...base, ...segmentsOver(input, used.segments) });
  }
  return null;
}

/**
 * Takes a send's messages and segments from the account's day, or throws DailyLimitReached (taking nothing).
 * Returns null when the account has no daily limit (nothing is counted then).
 */
export async function takeDailyShare(input: ShareAsked): Promise<DailyTake | null> {
  const { settings, accountId, messages, segments, now } = input;
  const messageLimit = settings.dailyMessageLimit;
  const segmentLimit = settings.dailySegmentLimit;
  if ((messageLimit === 0 && segmentLimit === 0) || messages === 0) return null;
  const day = localDay(now, settings.timeZone).date;
  const over = async () => (await roomLeft(input, day)) ?? refusal({ ...input, day, ...segmentsOver(input, 0) });
  // A send bigger than a whole day's limit is refused without touching the count (the day's first send is
  // inserted unchecked).
  if ((messageLimit > 0 && messages > messageLimit) || (segmentLimit > 0 && segments > segmentLimit)) {
    throw await over();
  }
  const args = { accountId, day, messages, segments, messageLimit, segmentLimit };
  let after = await takeInBatch(args);
  // Refused, but the day has room when read again: a share was given back meanwhile. Once more.
  if (after === null && (await roomLeft(input, day)) === null) after = await takeInBatch(args);
  if (after === null) throw await over();
  return { accountId, day, messages, segments, after };
}

// The shares of concurrent sends are taken in one write transaction (each by its own statement, in arrival order,
// so the limit stays exact): one commit, one disk sync, for all the sends that arrived while the last one was
// being written, as the group commit does for their rows. Measured with bench:send: a statement and commit per send
// cut single-destination sends at saturation from about 3,300/s to 1,100/s on SQLite.
type TakeArgs = Parameters<typeof takeDailyUsageSteps>[0];
interface PendingTake {
  args: TakeArgs;
  resolve: (after: Awaited<ReturnType<typeof takeInBatch>>) => void;
  reject: (error: unknown) => void;
}
let waitingTakes: PendingTake[] = [];
let takesInFlight = false;

function takeInBatch(args: TakeArgs): Promise<{ messages: number; segments: number } | null> {
  return new Promise((resolve, reject) => {
    waitingTakes.push({ args, resolve, reject });
    if (!takesInFlight) {
      takesInFlight = true;
      setImmediate(flushTakes);
    }
  });
}

function flushTakes(): void {
  const batch = waitingTakes;
  waitingTakes = [];
  writeTransaction(function* () {
    const taken = [];
    for (const pending of batch) taken.push(yield* takeDailyUsageSteps(pending.args));
    return taken;
  })
    .then(
      (taken) => batch.forEach((pending, i) => pending.resolve(taken[i] ?? null)),
      (error: unknown) => batch.forEach((pending) => pending.reject(error)),
    )
    .finally(() => {
      if (waitingTakes.length > 0) setImmediate(flushTakes);
      else takesInFlight = false;
    });
}

/** Gives a taken share back: the send's commit failed. */
export async function giveBackDailyShare(take: DailyTake): Promise<void> {
  await writeTransaction(() => giveBackDailyUsageSteps(take)).catch((error: unknown) =>
    logger().warn({ err: error, accountId: take.accountId }, "could not give back a daily limit share"),
  );
}

// The warnings this process knows were given (by it or another), so later sends of the day skip the statement.
const warned = new Set<string>();
const warnKey = (take: DailyTake, limit: string) => `${take.accountId} ${take.day} ${limit}`;

/**
 * After a send's commit: the 80 % warning of each limit its share reached, written once per limit and day (a
 * webhook event; the portal's banner reads the usage itself). `messageId`: the send's first accepted message.
 */
export async function warnIfDue(take: DailyTake, settings: SendSettings, messageId: string, now: Date): Promise<void> {
  const limits = [
    ["messages", settings.dailyMessageLimit, take.after.messages] as const,
    ["segments", settings.dailySegmentLimit, take.after.segments] as const,
  ].filter(([limit, max, used]) => max > 0 && used >= max * WARN_AT && !warned.has(warnKey(take, limit)));
  for (const [limit, max] of limits) {
    if (warned.size > 10_000) warned.clear();
    warned.add(warnKey(take, limit));
    await writeTransaction(function* () {
      const used = yield* markWarnedSteps({
        accountId: take.accountId,
        day: take.day,
        limit,
        threshold: Math.ceil(max * WARN_AT),
      });
      if (used === null) return;
      yield* enqueueLimitWarningSteps(
        {
          apiVersion: "v3",
          accountId: take.accountId,
          messageId,
          timestamp: now.toISOString(),
          limit,
          used,
          max,
          percent: Math.floor((used / max) * 100),
          day: take.day,
          timeZone: settings.timeZone,
          resetsAt: nextDayStart(now, settings.timeZone).toISOString(),
        },
        now,
      );
    }).catch((error: unknown) =>
      logger().warn({ err: error, accountId: take.accountId }, "could not write the daily limit warning"),
    );
  }
}

/** The account's usage of today against its limits, for the portal's banner and dashboard. */
export async function dailyUsage(accountId: string, settings: SendSettings, now = new Date()): Promise<UsageOfDay> {
  const day = localDay(now, settings.timeZone).date;
  const used =
    settings.dailyMessageLimit > 0 || settings.dailySegmentLimit > 0
      ? await readTransaction(() => readDailyUsageSteps(accountId, day))
      : { messages: 0, segments: 0 };
  return {
    day,
    timeZone: settings.timeZone,
    resetsAt: nextDayStart(now, settings.timeZone).toISOString(),
    messages: { used: used.messages, max: settings.dailyMessageLimit },
    segments: { used: used.segments, max: settings.dailySegmentLimit },
  };
}
