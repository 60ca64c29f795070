import { createAccount, listAccounts } from "../accounts/manage-accounts";
import type { Command } from "./command";
import { formatDate, formatTable } from "./format-output";
import { optionalString, requiredString, UsageError } from "./read-arguments";

// `parley account …`: create and list accounts.

function positiveRate(value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const rate = Number(value);
  if (value.trim() === "" || !Number.isFinite(rate) || rate <= 0) {
    throw new UsageError(`--rate must be a positive number of messages a second (such as 10 or 0.5), not "${value}"`);
  }
  return rate;
}

export const accountCommands: Command[] = [
  {
    name: "account create",
    synopsis: "--name <name> [--time-zone <IANA>] [--rate <msgs/s>]",
    summary: "Create an account (time zone UTC and 10 messages a second unless given); prints its id.",
    options: { name: { type: "string" }, "time-zone": { type: "string" }, rate: { type: "string" } },
    prepare({ values }) {
      const name = requiredString(values, "name", "<name>");
      const timeZone = optionalString(values, "time-zone");
      const rateLimitPerSecond = positiveRate(optionalString(values, "rate"));
      return async () => {
        const account = await createAccount({ name, timeZone, rateLimitPerSecond });
        return {
          json: accountJson(account),
          text: account.id,
          note: `Created account "${account.name}" (${account.timeZone}, ${account.rateLimitPerSecond} messages a second). Next: parley key create --account ${account.id}`,
        };
      };
    },
  },
  {
    name: "account list",
    synopsis: "",
    summary: "List the accounts.",
    options: {},
    prepare() {
      return async () => {
        const accounts = await listAccounts();
        const rows = accounts.map((a) => [
          a.id,
          a.name,
          a.timeZone,
          String(a.rateLimitPerSecond),
          formatDate(a.createdAt),
        ]);
        return {
          json: { accounts: accounts.map(accountJson) },
          text: rows.length
            ? formatTable(["ID", "NAME", "TIME ZONE", "MSGS/S", "CREATED"], rows)
            : "No accounts yet. Create one: parley account create --name <name>",
        };
      };
    },
  },
];

function accountJson(account: {
  id: string;
  name: string;
  timeZone: string;
  rateLimitPerSecond: number;
  createdAt: Date;
}) {
  return {
    id: account.id,
    name: account.name,
    timeZone: account.timeZone,
    rateLimitPerSecond: account.rateLimitPerSecond,
    createdAt: account.createdAt,
  };
}
