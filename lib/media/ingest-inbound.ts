import { db, type Db } from "../db/client";
import { mediaUrl, newMediaId, ownMediaId } from "./media-ids";

// An inbound message's media, as it is stored: each medium a carrier reports gets a Media row at once (pending, its
// provider URL kept as the source) and the message carries Parley's URL of it from the start, so the listing, the
// conversation and the inbound webhook name Parley's copy, which keeps working after the provider's URL expires.
// The bytes are fetched right after (fetch-inbound.ts); until then /media/{id} waits a little for them.
// A medium that is already Parley's own (the phone simulator uploads its pictures first) is carried as it is.

type Tx = Parameters<Parameters<Db["$transaction"]>[0]>[0];

export interface InboundMediaPlan {
  /** The message's `media`: Parley's URLs, in the order the carrier gave. */
  urls: string[];
  rows: { id: string; sourceUrl: string; own: boolean }[];
  /** Parley media URLs of another account (or gone): left out of the message. */
  dropped: number;
}

/** Parley's ids for a message's media; Parley's own URLs must be the account's. */
export async function planInboundMedia(accountId: string, sourceUrls: readonly string[]): Promise<InboundMediaPlan> {
  const ownIds = sourceUrls.map((url) => ownMediaId(url)).filter((id): id is string => id !== null);
  const owned = new Set(
    ownIds.length === 0
      ? []
      : (await db().media.findMany({ where: { id: { in: ownIds }, accountId }, select: { id: true } })).map(
          (m) => m.id,
        ),
  );
  const rows: InboundMediaPlan["rows"] = [];
  let dropped = 0;
  for (const sourceUrl of sourceUrls) {
    const own = ownMediaId(sourceUrl);
    if (own !== null && !owned.has(own)) dropped++;
    else rows.push({ id: own ?? newMediaId(), sourceUrl, own: own !== null });
  }
  return { urls: rows.map((r) => mediaUrl(r.id)), rows, dropped };
}

/** Writes the plan's rows in the message's transaction; returns whether any medium is to be fetched. */
export async function writeInboundMedia(
  tx: Tx,
  input: { accountId: string; messageId: string; plan: InboundMediaPlan; carrierId: string | null; at: Date },
): Promise<boolean> {
  const { accountId, messageId, plan, carrierId, at } = input;
  const fetched = plan.rows.filter((r) => !r.own);
  if (fetched.length > 0) {
    await tx.media.createMany({
      data: fetched.map((r) => ({
        id: r.id,
        accountId,
        origin: "inbound",
        state: "pending",
        sourceUrl: r.sourceUrl,
        carrierId,
        createdAt: at,
      })),
    });
  }
  if (plan.rows.length > 0) {
    await tx.messageMedia.createMany({
      data: plan.rows.map((r, position) => ({ messageId, position, mediaId: r.id, sourceUrl: r.sourceUrl })),
    });
  }
  return fetched.length > 0;
}
