import { readFileSync } from "node:fs";
import { AdminError } from "../accounts/manage-accounts";
import { isApiError } from "../api/api-error";
import { CONNECTION_KINDS, CONNECTION_TYPES, type ConnectionType } from "../carriers/connections/connection-kinds";
import {
  createConnection,
  listConnections,
  removeConnection,
  updateConnection,
  type ConnectionView,
} from "../carriers/connections/manage-connections";
import {
  buyProviderNumber,
  importProviderNumbers,
  listProviderNumbers,
  releaseProviderNumber,
  searchProviderNumbers,
} from "../carriers/connections/provider-numbers";
import { testConnection } from "../carriers/connections/test-connection";
import type { Command } from "./command";
import { e164, formatTable } from "./format-output";
import { optionalString, requiredString, UsageError, type OptionSpec, type OptionValues } from "./read-arguments";

// `parley carrier …`: an account's carrier connections (docs/CARRIERS.md), through the same service as the portal's
// Carriers page, recorded in the account's audit trail as "cli". Secrets given here are sealed at once and never
// printed again.

const ACTOR = "cli";

async function asAdmin<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (!isApiError(error)) throw error;
    const detail = error.detail ?? error.message;
    const option = error.field ? optionOf(error.field) : undefined;
    throw new AdminError(option ? `${option}: ${detail}` : detail);
  }
}

/** Every kind's options, once each (--password is SMPP's and Bandwidth's, --api-key Telnyx's and Vonage's). */
const KIND_OPTIONS: OptionSpec = Object.fromEntries(
  Object.values(CONNECTION_KINDS)
    .flatMap((kind) => kind.fields)
    .map((field) => [field.option.slice(2), { type: "string" as const }]),
);

function optionOf(key: string): string | undefined {
  for (const kind of Object.values(CONNECTION_KINDS)) {
    const field = kind.fields.find((f) => f.key === key);
    if (field) return field.option;
  }
  return undefined;
}

/** The kind's fields from the command line; --private-key-file is read from the file it names. */
function kindValues(type: ConnectionType, values: OptionValues): Record<string, unknown> {
  const raw: Record<string, unknown> = {};
  const known = new Set(CONNECTION_KINDS[type].fields.map((f) => f.option.slice(2)));
  for (const name of Object.keys(KIND_OPTIONS)) {
    if (values[name] !== undefined && !known.has(name))
      throw new UsageError(`--${name} is not an option of a ${type} connection`);
  }
  for (const field of CONNECTION_KINDS[type].fields) {
    const value = optionalString(values, field.option.slice(2));
    if (value === undefined) continue;
    if (field.option === "--private-key-file") {
      try {
        raw[field.key] = readFileSync(value, "utf8");
      } catch (error) {
        throw new UsageError(
          `--private-key-file: cannot read ${value} (${(error as NodeJS.ErrnoException).code ?? "error"})`,
        );
      }
    } else raw[field.key] = value;
  }
  return raw;
}

function typeOf(values: OptionValues): ConnectionType {
  const type = requiredString(values, "type", "<kind>");
  if (!(CONNECTION_TYPES as readonly string[]).includes(type))
    throw new UsageError(`--type is one of ${CONNECTION_TYPES.join(", ")}, not "${type}"`);
  return type as ConnectionType;
}

function connectionJson(accountId: string, view: ConnectionView) {
  return { accountId, ...view };
}

const accountOption = { account: { type: "string" } } satisfies OptionSpec;

const kindSynopsis = CONNECTION_TYPES.filter((t) => CONNECTION_KINDS[t].fields.length > 0)
  .map(
    (t) =>
      `${t}: ${CONNECTION_KINDS[t].fields.map((f) => `${f.required ? "" : "["}${f.option} <…>${f.required ? "" : "]"}`).join(" ")}`,
  )
  .join("; ");

export const carrierCommands: Command[] = [
  {
    name: "carrier add",
    synopsis: "--account <id> --type <kind> --name <name> [kind options] [--api-url <base>] [--disabled]",
    summary: `Add a carrier connection to an account (kinds: ${CONNECTION_TYPES.join(", ")}). Prints its id and the inboundUrl and statusUrl to give the provider. Options by kind: ${kindSynopsis}.`,
    options: {
      ...accountOption,
      type: { type: "string" },
      name: { type: "string" },
      disabled: { type: "boolean" },
      ...KIND_OPTIONS,
    },
    prepare({ values }) {
      const accountId = requiredString(values, "account", "<id>");
      const type = typeOf(values);
      const name = requiredString(values, "name", "<name>");
      const raw = kindValues(type, values);
      return async () => {
        const view = await asAdmin(() =>
          createConnection({ accountId, type, name, values: raw, enabled: values.disabled !== true, actor: ACTOR }),
        );
        return {
          json: connectionJson(accountId, view),
          text: view.id,
          note: `Added ${type} connection "${view.name}". Give the provider these addresses:\n  inbound: ${view.inboundUrl}\n  status:  ${view.statusUrl}\nRoute a number to it: parley number update --account ${accountId} --carrier ${view.name} <+E164>`,
        };
      };
    },
  },
  {
    name: "carrier update",
    synopsis: "--account <id> [--name <new name>] [--enabled true|false] [kind options] <name>",
    summary:
      "Change a carrier connection: its name, whether it sends, any of its kind's options (a secret not given stays as saved).",
    options: { ...accountOption, name: { type: "string" }, enabled: { type: "string" }, ...KIND_OPTIONS },
    positionals: ["<name>"],
    prepare({ values, positionals }) {
      const accountId = requiredString(values, "account", "<id>");
      const enabledText = optionalString(values, "enabled");
      if (enabledText !== undefined && enabledText !== "true" && enabledText !== "false")
        throw new UsageError(`--enabled is true or false, not "${enabledText}"`);
      return async () => {
        const current = (await asAdmin(() => listConnections(accountId))).find(
          (c) => c.name === positionals[0] || c.id === positionals[0],
        );
        if (!current) throw new AdminError(`no carrier connection "${positionals[0]}" in account ${accountId}`);
        const view = await asAdmin(() =>
          updateConnection({
            accountId,
            idOrName: current.id,
            name: optionalString(values, "name"),
            enabled: enabledText === undefined ? undefined : enabledText === "true",
            values: kindValues(current.type, values),
            actor: ACTOR,
          }),
        );
        return {
          json: connectionJson(accountId, view),
          text: `${view.name}: ${view.type}, ${view.enabled ? "enabled" : "disabled"}.`,
        };
      };
    },
  },
  {
    name: "carrier list",
    synopsis: "--account <id>",
    summary: "List an account's carrier connections with their state and the numbers routed to each.",
    options: accountOption,
    prepare({ values }) {
      const accountId = requiredString(values, "account", "<id>");
      return async () => {
        const connections = await asAdmin(() => listConnections(accountId));
        const rows = connections.map((c) => [c.name, c.type, c.state, String(c.numbers), c.id]);
        return {
          json: { accountId, carriers: connections },
          text: rows.length
            ? formatTable(["NAME", "TYPE", "STATE", "NUMBERS", "ID"], rows)
            : `Account ${accountId} has no carrier connections: its numbers use the deployment's default. Add one: parley carrier add --account ${accountId} --type twilio --name <name> …`,
        };
      };
    },
  },
  {
    name: "carrier test",
    synopsis: "--account <id> <name>",
    summary: "Ask the provider's account or balance endpoint with the saved credentials, and say what it answered.",
    options: accountOption,
    positionals: ["<name>"],
    prepare({ values, positionals }) {
      const accountId = requiredString(values, "account", "<id>");
      return async () => {
        const result = await asAdmin(() => testConnection({ accountId, idOrName: positionals[0]!, actor: ACTOR }));
        if (!result.ok) throw new AdminError(result.words);
        return { json: { accountId, carrier: positionals[0], ...result }, text: result.words };
      };
    },
  },
  {
    name: "carrier remove",
    synopsis: "--account <id> <name>",
    summary: "Remove a carrier connection no number is routed to (route its numbers elsewhere first).",
    options: accountOption,
    positionals: ["<name>"],
    prepare({ values, positionals }) {
      const accountId = requiredString(values, "account", "<id>");
      return async () => {
        const view = await asAdmin(() => removeConnection({ accountId, idOrName: positionals[0]!, actor: ACTOR }));
        return {
          json: { accountId, id: view.id, name: view.name, removed: true },
          text: `Removed carrier connection "${view.name}".`,
        };
      };
    },
  },
  {
    name: "carrier numbers",
    synopsis: "--account <id> <name>",
    summary: "List the numbers the provider account behind a connection holds, and which are imported.",
    options: accountOption,
    positionals: ["<name>"],
    prepare({ values, positionals }) {
      const accountId = requiredString(values, "account", "<id>");
      return async () => {
        const numbers = await asAdmin(() => listProviderNumbers(accountId, positionals[0]!));
        const rows = numbers.map((n) => [e164(n.number), n.status, n.label || "-", n.providerNumberId]);
        return {
          json: { accountId, carrier: positionals[0], numbers: numbers.map((n) => ({ ...n, number: e164(n.number) })) },
          text: rows.length
            ? formatTable(["NUMBER", "STATUS", "LABEL", "PROVIDER ID"], rows)
            : "The provider account holds no numbers.",
        };
      };
    },
  },
  {
    name: "carrier import",
    synopsis: "--account <id> <name> [<+E164>…]",
    summary:
      "Import the provider's numbers (all available, or those named) into the account, routed to the connection, with their inbound URL set at the provider.",
    options: accountOption,
    positionals: ["<name>", "[<+E164>…]"],
    prepare({ values, positionals }) {
      const accountId = requiredString(values, "account", "<id>");
      const [name, ...numbers] = positionals;
      return async () => {
        const result = await asAdmin(() =>
          importProviderNumbers({
            accountId,
            idOrName: name!,
            numbers: numbers.length ? numbers : undefined,
            actor: ACTOR,
          }),
        );
        const lines = [
          ...result.imported.map((n) => `imported ${e164(n)}`),
          ...result.skipped.map((s) => `skipped ${e164(s.number)}: ${s.why}`),
        ];
        return {
          json: {
            accountId,
            carrier: name,
            imported: result.imported.map(e164),
            skipped: result.skipped.map((s) => ({ ...s, number: e164(s.number) })),
          },
          text: lines.join("\n") || "Nothing to import.",
        };
      };
    },
  },
  {
    name: "carrier search",
    synopsis: "--account <id> --country <CC> [--area-code <digits>] <name>",
    summary: "Search the provider for numbers to buy, by country and area code.",
    options: { ...accountOption, country: { type: "string" }, "area-code": { type: "string" } },
    positionals: ["<name>"],
    prepare({ values, positionals }) {
      const accountId = requiredString(values, "account", "<id>");
      const country = requiredString(values, "country", "<CC>");
      const areaCode = optionalString(values, "area-code");
      return async () => {
        const found = await asAdmin(() =>
          searchProviderNumbers({ accountId, idOrName: positionals[0]!, country, areaCode }),
        );
        return {
          json: { accountId, carrier: positionals[0], numbers: found.map((n) => ({ ...n, number: e164(n.number) })) },
          text: found.length
            ? formatTable(
                ["NUMBER", "WHERE"],
                found.map((n) => [e164(n.number), n.locality || "-"]),
              )
            : "No numbers found.",
        };
      };
    },
  },
  {
    name: "carrier buy",
    synopsis: "--account <id> <name> <+E164>",
    summary: "Buy a number at the provider, routed to the connection and provisioned to the account.",
    options: accountOption,
    positionals: ["<name>", "<+E164>"],
    prepare({ values, positionals }) {
      const accountId = requiredString(values, "account", "<id>");
      return async () => {
        const number = await asAdmin(() =>
          buyProviderNumber({ accountId, idOrName: positionals[0]!, number: positionals[1]!, actor: ACTOR }),
        );
        return {
          json: { accountId, number: e164(number.number), carrier: number.carrier },
          text: `Bought ${e164(number.number)}.`,
        };
      };
    },
  },
  {
    name: "carrier release",
    synopsis: "--account <id> <+E164>",
    summary: "Release a number from the account and back to the provider of the connection it is routed to.",
    options: accountOption,
    positionals: ["<+E164>"],
    prepare({ values, positionals }) {
      const accountId = requiredString(values, "account", "<id>");
      return async () => {
        const released = await asAdmin(() =>
          releaseProviderNumber({ accountId, number: positionals[0]!, actor: ACTOR }),
        );
        return {
          json: { accountId, number: e164(released.number), released: true },
          text: `Released ${e164(released.number)}.`,
        };
      };
    },
  },
];
