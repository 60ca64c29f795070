import { needsReseal, openSecret, sealSecret } from "../secrets/secret-box";

// Webhook signing secrets are stored sealed under PARLEY_SECRET_KEY (lib/secrets/secret-box.ts), bound to their row's
// id. Rows written before that hold the secret itself (`whsec_…`): they still sign, and are sealed the first time
// they are read (signingSecrets) or by `parley secrets reseal`.

const context = (secretId: string) => `webhook:${secretId}`;

/** A signing secret as stored in its WebhookSecret row. */
export function sealWebhookSecret(plain: string, secretId: string): string {
  return sealSecret(plain, context(secretId));
}

/**
 * The secret of a stored value, and whether it should be stored again sealed under the current key (plain text, or
 * sealed under a previous key); null when it cannot be opened (another key, another row, damaged).
 */
export function openWebhookSecret(stored: string, secretId: string): { plain: string; reseal: boolean } | null {
  if (stored.startsWith("whsec_")) return { plain: stored, reseal: true };
  const plain = openSecret(stored, context(secretId));
  return plain === null ? null : { plain, reseal: needsReseal(stored) };
}
