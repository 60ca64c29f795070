import { resealSecrets, type ResealCounts } from "../secrets/reseal-secrets";
import type { Command } from "./command";

// `parley secrets …`: the secrets stored in the database under PARLEY_SECRET_KEY (docs/SECURITY.md).

function describeCounts(what: string, c: ResealCounts): string {
  return `${what}: ${c.resealed} re-sealed, ${c.current} already under the current key, ${c.unreadable} could not be opened`;
}

export const secretCommands: Command[] = [
  {
    name: "secrets reseal",
    synopsis: "",
    summary:
      "Seal every stored secret (TOTP keys, webhook signing secrets, carrier credentials) again under the current PARLEY_SECRET_KEY: after a key rotation, or to seal values stored before there was one. Values no key opens are left untouched.",
    options: {},
    prepare() {
      return async () => {
        const report = await resealSecrets();
        const unreadable =
          report.totpKeys.unreadable + report.webhookSecrets.unreadable + report.carrierCredentials.unreadable;
        return {
          json: { ...report },
          text: [
            describeCounts("TOTP keys", report.totpKeys),
            describeCounts("Webhook signing secrets", report.webhookSecrets),
            describeCounts("Carrier credentials", report.carrierCredentials),
          ].join("\n"),
          warning: unreadable
            ? `${unreadable} secret(s) could not be opened with PARLEY_SECRET_KEY or PARLEY_SECRET_KEY_PREVIOUS and were left as they are: keep the key they were sealed under in PARLEY_SECRET_KEY_PREVIOUS and run this again.`
            : undefined,
        };
      };
    },
  },
];
