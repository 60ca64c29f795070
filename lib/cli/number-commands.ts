import { AdminError } from "../accounts/manage-accounts";
import { isApiError } from "../api/api-error";
import { listNumbers, provisionNumber, releaseNumber, updateNumber, type NumberRow } from "../numbers/manage-numbers";
import { NUMBER_LIMITS } from "../numbers/number-schema";
import type { Command } from "./command";
import { e164, formatDate, formatTable } from "./format-output";
import { optionalString, requiredString, UsageError, type OptionSpec, type OptionValues } from "./read-arguments";

// `parley number …`: an account's numbers, through the same service as /v3/numbers and the portal, recorded in the
// account's audit trail as "cli".

const ACTOR = "cli";

/** The service's refusals (an invalid number, one held elsewhere, an unknown account) are one-line errors. */
async function asAdmin<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (!isApiError(error)) throw error;
    const detail = error.detail ?? error.message;
    // "number: … is not valid" reads as "… is not valid" on a command line that named the number itself.
    throw new AdminError(
      error.field && detail.startsWith(`${error.field}: `) ? detail.slice(error.field.length + 2) : detail,
    );
  }
}

function rateOption(values: OptionValues): number | undefined {
  const value = optionalString(values, "rate");
  if (value === undefined) return undefined;
  const rate = Number(value);
  if (value.trim() === "" || !Number.isFinite(rate) || rate <= 0 || rate > NUMBER_LIMITS.maxRatePerSecond) {
    throw new UsageError(
      `--rate must be a number of messages a second above 0 and at most ${NUMBER_LIMITS.maxRatePerSecond} (such as 1 or 0.5), not "${value}"`,
    );
  }
  return rate;
}

export function numberJson(accountId: string, number: NumberRow & { queued?: number }) {
  return {
    accountId,
    number: e164(number.number),
    label: number.label,
    ratePerSecond: number.ratePerSecond,
    carrier: number.carrier,
    ...(number.queued === undefined ? {} : { queued: number.queued }),
    createdAt: number.createdAt,
  };
}

const accountOption = { account: { type: "string" } } satisfies OptionSpec;

export const numberCommands: Command[] = [
  {
    name: "number add",
    synopsis: "--account <id> [--label <label>] [--rate <msgs/s>] [--carrier <name>] <+E164>",
    summary: `Provision a telephone number to an account, so it can send from it (${NUMBER_LIMITS.defaultRatePerSecond} message a second unless --rate), routed to a carrier connection (--carrier; the default connection without). Adding a number the account holds already changes nothing.`,
    options: { ...accountOption, label: { type: "string" }, rate: { type: "string" }, carrier: { type: "string" } },
    positionals: ["<+E164>"],
    prepare({ values, positionals }) {
      const accountId = requiredString(values, "account", "<id>");
      const label = optionalString(values, "label");
      const ratePerSecond = rateOption(values);
      const carrier = optionalString(values, "carrier");
      return async () => {
        const number = await asAdmin(() =>
          provisionNumber({ accountId, number: positionals[0]!, label, ratePerSecond, carrier, actor: ACTOR }),
        );
        return {
          json: { ...numberJson(accountId, number), created: number.created },
          text: number.created
            ? `${e164(number.number)} is provisioned to account ${accountId}.`
            : `${e164(number.number)} is provisioned to account ${accountId} already (unchanged; use number update to change it).`,
        };
      };
    },
  },
  {
    name: "number update",
    synopsis: "--account <id> [--label <label>] [--rate <msgs/s>] [--carrier <name>|default] <+E164>",
    summary:
      "Change a number's label, sending rate (messages a second; the account's limit still caps the sum) or carrier connection (--carrier default: the deployment's default connection).",
    options: { ...accountOption, label: { type: "string" }, rate: { type: "string" }, carrier: { type: "string" } },
    positionals: ["<+E164>"],
    prepare({ values, positionals }) {
      const accountId = requiredString(values, "account", "<id>");
      const label = optionalString(values, "label");
      const ratePerSecond = rateOption(values);
      const named = optionalString(values, "carrier");
      const carrier = named === undefined ? undefined : named === "default" || named === "" ? null : named;
      if (label === undefined && ratePerSecond === undefined && carrier === undefined)
        throw new UsageError("give --label, --rate, --carrier or more than one");
      return async () => {
        const number = await asAdmin(() =>
          updateNumber({ accountId, number: positionals[0]!, label, ratePerSecond, carrier, actor: ACTOR }),
        );
        return {
          json: numberJson(accountId, number),
          text: `${e164(number.number)}: label "${number.label}", ${number.ratePerSecond} messages a second, carrier ${number.carrier ?? "default"}.`,
        };
      };
    },
  },
  {
    name: "number remove",
    synopsis: "--account <id> <+E164>",
    summary:
      "Release a number from an account; sending from it is refused (FromNotOwned) from then on, and messages still queued from it are cancelled.",
    options: accountOption,
    positionals: ["<+E164>"],
    prepare({ values, positionals }) {
      const accountId = requiredString(values, "account", "<id>");
      return async () => {
        const released = await asAdmin(() => releaseNumber({ accountId, number: positionals[0]!, actor: ACTOR }));
        const number = e164(released.number);
        const cancelled = released.cancelledMessages;
        return {
          json: { accountId, number, removed: true, cancelledMessages: cancelled },
          text: `Removed ${number} from account ${accountId}.${
            cancelled > 0
              ? ` ${cancelled} queued message${cancelled === 1 ? " was" : "s were"} cancelled (rejected, FromNotOwned).`
              : ""
          }`,
        };
      };
    },
  },
  {
    name: "number list",
    synopsis: "--account <id>",
    summary: "List an account's numbers with their labels, rates and the messages waiting to leave each.",
    options: accountOption,
    prepare({ values }) {
      const accountId = requiredString(values, "account", "<id>");
      return async () => {
        const { numbers } = await asAdmin(() => listNumbers({ accountId }));
        const rows = numbers.map((n) => [
          e164(n.number),
          n.label || "-",
          String(n.ratePerSecond),
          String(n.queued),
          formatDate(n.createdAt),
        ]);
        return {
          json: { accountId, numbers: numbers.map((n) => numberJson(accountId, n)) },
          text: rows.length
            ? formatTable(["NUMBER", "LABEL", "MSGS/S", "QUEUED", "ADDED"], rows)
            : `Account ${accountId} has no numbers. Add one: parley number add --account ${accountId} <+E164>`,
        };
      };
    },
  },
];
