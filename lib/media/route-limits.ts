import { db } from "../db/client";
import { env } from "../env";
import type { FitLimits } from "./fit-media";
import type { MediaLimits } from "./attachment";

// What the route of a `from` number takes as MMS: whether it carries media at all (SMPP does not: the text gets
// links to Parley's copies instead), and the sizes its media are fitted to. A connection's own settings
// (mmsImageMaxKb, mmsMessageMaxKb) win over the deployment's MEDIA_IMAGE_MAX_BYTES and MEDIA_MESSAGE_MAX_BYTES.

export interface RouteMedia {
  /** The route delivers MMS (else the media go as links in the text, and the SDR says so). */
  mms: boolean;
  limits: FitLimits;
  /** The limits in one word, so a medium fitted once for them is reused by every message with the same. */
  fitKey: string;
}

function kilobytes(value: unknown): number | null {
  return typeof value === "number" && Number.isInteger(value) && value > 0 ? value * 1024 : null;
}

function routeOf(type: string | null, settingsJson: string | null): RouteMedia {
  const e = env();
  let settings: Record<string, unknown> = {};
  try {
    settings = settingsJson ? (JSON.parse(settingsJson) as Record<string, unknown>) : {};
  } catch {
    settings = {};
  }
  const limits = {
    imageMaxBytes: kilobytes(settings.mmsImageMaxKb) ?? e.MEDIA_IMAGE_MAX_BYTES,
    messageMaxBytes: kilobytes(settings.mmsMessageMaxKb) ?? e.MEDIA_MESSAGE_MAX_BYTES,
  };
  // An image is never fitted above what the whole message may carry.
  limits.imageMaxBytes = Math.min(limits.imageMaxBytes, limits.messageMaxBytes);
  return { mms: (type ?? e.CARRIER) !== "smpp", limits, fitKey: `image<=${limits.imageMaxBytes}` };
}

/** The route of each of `numbers` (E.164 digits); a number that is gone gets the default connection's. */
export async function routeMediaOf(numbers: readonly string[]): Promise<Map<string, RouteMedia>> {
  const rows = await db().phoneNumber.findMany({
    where: { number: { in: [...new Set(numbers)] } },
    select: { number: true, carrier: { select: { type: true, settings: true } } },
  });
  const routes = new Map<string, RouteMedia>();
  for (const n of numbers) routes.set(n, routeOf(null, null));
  for (const row of rows) routes.set(row.number, routeOf(row.carrier?.type ?? null, row.carrier?.settings ?? null));
  return routes;
}

/** What the portal's composer shows and holds a reply to from `number`: the route's limits and the upload limit. */
export async function composerLimits(number: string): Promise<MediaLimits> {
  const route = (await routeMediaOf([number])).get(number)!;
  return {
    uploadMaxBytes: env().MEDIA_MAX_BYTES,
    imageMaxBytes: route.limits.imageMaxBytes,
    messageMaxBytes: route.limits.messageMaxBytes,
  };
}
