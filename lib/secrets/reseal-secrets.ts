import { db } from "../db/client";
import { openTotpSecret, sealTotpSecret } from "../auth/two-factor-secret";
import { openWebhookSecret, sealWebhookSecret } from "../webhooks/seal-webhook-secret";
import { needsReseal, openSecret, sealSecret } from "./secret-box";

// `parley secrets reseal`: every stored secret sealed again under the current PARLEY_SECRET_KEY, after a key rotation
// (docs/SECURITY.md) or to seal values stored before there was one (legacy TOTP keys, plain webhook secrets). A value
// no key opens is left as it is, never destroyed: it is counted, so the operator can tell a missing previous key.
// Idempotent: a value already sealed under the current key is not written.

export interface ResealCounts {
  /** Sealed again under the current key. */
  resealed: number;
  /** Already sealed under the current key. */
  current: number;
  /** Not opened by any key given: left untouched. */
  unreadable: number;
}

export interface ResealReport {
  totpKeys: ResealCounts;
  webhookSecrets: ResealCounts;
  /** Carrier connections' credentials (one sealed value per connection). */
  carrierCredentials: ResealCounts;
}

type Opened = { plain: string; reseal: boolean } | null;

async function resealRows(
  rows: { key: string; stored: string }[],
  open: (stored: string, key: string) => Opened,
  seal: (plain: string, key: string) => string,
  write: (key: string, stored: string, sealed: string) => Promise<number>,
): Promise<ResealCounts> {
  const counts: ResealCounts = { resealed: 0, current: 0, unreadable: 0 };
  for (const row of rows) {
    const opened = open(row.stored, row.key);
    if (!opened) counts.unreadable++;
    else if (!opened.reseal) counts.current++;
    // Written only if the row still holds what was read: a change in between (a new enrolment, a sign-in that
    // sealed it already) wins.
    else if ((await write(row.key, row.stored, seal(opened.plain, row.key))) === 1) counts.resealed++;
    else counts.current++;
  }
  return counts;
}

export async function resealSecrets(): Promise<ResealReport> {
  const totpRows = await db().userTwoFactor.findMany({ select: { userId: true, secret: true } });
  const totpKeys = await resealRows(
    totpRows.map((r) => ({ key: r.userId, stored: r.secret })),
    openTotpSecret,
    sealTotpSecret,
    async (userId, stored, secret) =>
      (await db().userTwoFactor.updateMany({ where: { userId, secret: stored }, data: { secret } })).count,
  );
  const webhookRows = await db().webhookSecret.findMany({ select: { id: true, secret: true } });
  const webhookSecrets = await resealRows(
    webhookRows.map((r) => ({ key: r.id, stored: r.secret })),
    openWebhookSecret,
    sealWebhookSecret,
    async (id, stored, secret) =>
      (await db().webhookSecret.updateMany({ where: { id, secret: stored }, data: { secret } })).count,
  );
  const carrierRows = await db().carrierConnection.findMany({
    where: { credentials: { not: "" } },
    select: { id: true, credentials: true },
  });
  const carrierCredentials = await resealRows(
    carrierRows.map((r) => ({ key: r.id, stored: r.credentials })),
    (stored, id) => {
      const plain = openSecret(stored, `carrier:${id}`);
      return plain === null ? null : { plain, reseal: needsReseal(stored) };
    },
    (plain, id) => sealSecret(plain, `carrier:${id}`),
    async (id, stored, credentials) =>
      (await db().carrierConnection.updateMany({ where: { id, credentials: stored }, data: { credentials } })).count,
  );
  return { totpKeys, webhookSecrets, carrierCredentials };
}
