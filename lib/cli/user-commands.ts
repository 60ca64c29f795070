import { randomBytes } from "node:crypto";
import { createUser } from "../accounts/manage-accounts";
import type { ChangedBy } from "../audit/audit-trail";
import { resetTwoFactorByEmail } from "../auth/two-factor-enrolment";
import type { Command } from "./command";
import { optionalString, requiredString, UsageError, type OptionSpec, type ParsedArguments } from "./read-arguments";

// `parley user …`: portal users, created and their two-factor sign-in reset.

function role(value: string): "admin" | "agent" {
  if (value !== "admin" && value !== "agent") throw new UsageError(`--role must be admin or agent, not "${value}"`);
  return value;
}

// The password of `user create`: --password, else PARLEY_PASSWORD (so it need not appear in the shell history or in
// `ps`), else a generated one that is printed once. Read here rather than in lib/env.ts: it is one command's input,
// not the server's configuration.
function passwordSource(values: ParsedArguments["values"]): { password: string; generated: boolean } {
  const given = optionalString(values, "password") ?? process.env.PARLEY_PASSWORD;
  if (given !== undefined && given !== "") return { password: given, generated: false };
  return { password: randomBytes(18).toString("base64url"), generated: true };
}

const accountOption = { account: { type: "string" } } satisfies OptionSpec;

// The operator's changes go into the account's audit trail too, as "cli".
const CLI: ChangedBy = { actor: "cli" };

export const userCommands: Command[] = [
  {
    name: "user create",
    synopsis: "--account <id> --email <email> --role admin|agent [--name <name>] [--password <password>]",
    summary:
      "Create a portal user. The password comes from --password or PARLEY_PASSWORD; without either one is generated and printed once.",
    options: {
      ...accountOption,
      email: { type: "string" },
      role: { type: "string" },
      name: { type: "string" },
      password: { type: "string" },
    },
    prepare({ values }) {
      const accountId = requiredString(values, "account", "<id>");
      const email = requiredString(values, "email", "<email>");
      const userRole = role(requiredString(values, "role", "admin|agent"));
      const name = optionalString(values, "name")?.trim();
      const { password, generated } = passwordSource(values);
      return async () => {
        const user = await createUser({ accountId, email, role: userRole, name, password, by: CLI });
        const created = `Created ${user.role} ${user.email} (${user.id}) on account ${user.accountId}.`;
        return {
          json: { ...user, ...(generated ? { password } : {}) },
          text: generated ? `${created}\nPassword: ${password}` : created,
          warning: generated
            ? `The generated password is shown this once and cannot be shown again: store it now.`
            : undefined,
        };
      };
    },
  },
  {
    name: "user reset-2fa",
    synopsis: "<email>",
    summary:
      "Reset a portal user's two-factor sign-in (a lost phone): they sign in with their password and set it up again.",
    options: {},
    positionals: ["<email>"],
    prepare({ positionals }) {
      const email = positionals[0]!;
      return async () => {
        const reset = await resetTwoFactorByEmail(email, CLI);
        return {
          json: {
            email: reset.email,
            accountId: reset.accountId,
            twoFactor: "off",
            endedSessions: reset.endedSessions,
          },
          text:
            `Two-factor sign-in of ${reset.email} is reset: they sign in with their password and set it up again.` +
            (reset.endedSessions > 0 ? ` Their open sessions (${reset.endedSessions}) are signed out.` : ""),
        };
      };
    },
  },
];
