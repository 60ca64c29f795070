import { AdminError } from "../accounts/manage-accounts";
import { isApiError } from "../api/api-error";
import { exportOptEventsCsv, listOptEvents, listOptStates, setOptStatus, type OptAction } from "../opt/manage-opt";
import type { OptOutcome } from "../opt/apply-opt-keyword";
import { getOptSettings, parseOptSettings, updateOptSettings } from "../opt/opt-settings";
import type { Command, CommandResult } from "./command";
import { e164, formatTable } from "./format-output";
import { optionalString, requiredString, UsageError, type OptionSpec, type OptionValues } from "./read-arguments";

// Opt in/out for operators: the same services as the admin API, with "cli" as the actor in the audit trail.

// The services speak the API's errors; an operator reads their detail on one line.
async function asAdmin<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (isApiError(error)) throw new AdminError(error.detail ?? error.code);
    throw error;
  }
}

/** What an inbound text did to the opt state, for the `inbound` command's confirmation. */
export function describeOpt(opt: OptOutcome): string {
  if (opt.flagged) return " It mentions stopping without being a keyword: flagged for staff.";
  if (!opt.kind) return "";
  const effect = { out: "opted out", in: "opted back in", help: "sent the help text" }[opt.kind];
  return ` Keyword: ${effect}; automatic reply ${opt.replyMessageId} queued.`;
}

function changeCommand(action: OptAction): Command {
  return {
    name: `opt ${action}`,
    synopsis: "--account <id> --number <+E164> [--note <text>]",
    summary:
      action === "out"
        ? "Opt a number out of an account (a request made by phone, e-mail or in a flagged message); recorded in the audit trail."
        : "Opt a number back in (only when the person asked for it); recorded in the audit trail.",
    options: { account: { type: "string" }, number: { type: "string" }, note: { type: "string" } },
    prepare({ values }) {
      const accountId = requiredString(values, "account", "<id>");
      const number = requiredString(values, "number", "<+E164>");
      const note = optionalString(values, "note");
      return async (): Promise<CommandResult> => {
        const event = await asAdmin(() => setOptStatus({ accountId, number, action, actor: "cli", note }));
        return {
          json: { event },
          text: event.id,
          note: `${e164(event.number)} is opted ${action} of account ${accountId}.`,
        };
      };
    },
  };
}

function sinceOption(values: OptionValues, name: string): string | undefined {
  const value = optionalString(values, name);
  if (value !== undefined && Number.isNaN(new Date(value).getTime())) {
    throw new UsageError(`--${name} must be an ISO date such as 2026-11-01 or 2026-11-01T09:00:00Z, not "${value}"`);
  }
  return value;
}

// The audit trail's filters, shared by `opt events` and `opt export`.
const eventFilterOptions = {
  account: { type: "string" },
  number: { type: "string" },
  since: { type: "string" },
  until: { type: "string" },
} satisfies OptionSpec;

function eventFilter(values: OptionValues) {
  return {
    accountId: requiredString(values, "account", "<id>"),
    number: optionalString(values, "number"),
    since: sinceOption(values, "since"),
    until: sinceOption(values, "until"),
  };
}

export const optCommands: Command[] = [
  changeCommand("out"),
  changeCommand("in"),
  {
    name: "opt list",
    synopsis: "--account <id> [--status in|out]",
    summary: "List the numbers with an opt record for an account (opted out, or back in).",
    options: { account: { type: "string" }, status: { type: "string" } },
    prepare({ values }) {
      const accountId = requiredString(values, "account", "<id>");
      const status = optionalString(values, "status");
      if (status !== undefined && status !== "in" && status !== "out") {
        throw new UsageError(`--status must be in or out, not "${status}"`);
      }
      return async () => {
        const { numbers } = await asAdmin(() => listOptStates({ accountId, status }));
        const rows = numbers.map((n) => [e164(n.number), n.status, n.changedAt ?? "-"]);
        return {
          json: { accountId, numbers },
          text: rows.length
            ? formatTable(["NUMBER", "STATUS", "CHANGED"], rows)
            : `No number has opted in or out of account ${accountId}.`,
        };
      };
    },
  },
  {
    name: "opt events",
    synopsis: "--account <id> [--number <+E164>] [--since <date>] [--until <date>]",
    summary: "Show the opt audit trail of an account, newest first (at most 1,000 events; export gives all).",
    options: eventFilterOptions,
    prepare({ values }) {
      const filter = { ...eventFilter(values), count: 1000 };
      return async () => {
        const page = await asAdmin(() => listOptEvents(filter));
        const rows = page.events.map((e) => [
          e.createdAt,
          e164(e.number),
          e.action,
          e.source === "keyword" ? `keyword ${e.keyword}` : `${e.source} ${e.actor}`,
          e.note,
        ]);
        return {
          json: page,
          text: rows.length ? formatTable(["TIME", "NUMBER", "ACTION", "BY", "NOTE"], rows) : "No opt events.",
        };
      };
    },
  },
  {
    name: "opt export",
    synopsis: "--account <id> [--number <+E164>] [--since <date>] [--until <date>] > opt-events.csv",
    summary: "Write the opt audit trail as CSV (oldest first) on stdout.",
    options: eventFilterOptions,
    prepare({ values }) {
      const filter = eventFilter(values);
      const { accountId } = filter;
      return async () => {
        const csv = await asAdmin(() => exportOptEventsCsv(filter));
        return { json: { accountId, csv }, text: csv };
      };
    },
  },
  {
    name: "opt settings",
    synopsis:
      "--account <id> [--footer <text>] [--stop-reply <text>] [--start-reply <text>] [--help-reply <text>] [--reset <field>]...",
    summary:
      "Show or change the opt footer and automatic replies of an account (--reset footer|stop-reply|start-reply|help-reply restores a default).",
    options: {
      account: { type: "string" },
      footer: { type: "string" },
      "stop-reply": { type: "string" },
      "start-reply": { type: "string" },
      "help-reply": { type: "string" },
      reset: { type: "string", multiple: true },
    },
    prepare({ values }) {
      const accountId = requiredString(values, "account", "<id>");
      const fields = {
        footer: "footer",
        "stop-reply": "stopReply",
        "start-reply": "startReply",
        "help-reply": "helpReply",
      };
      const input: Record<string, string | null> = {};
      for (const [option, field] of Object.entries(fields)) {
        const value = optionalString(values, option);
        if (value !== undefined) input[field] = value;
      }
      for (const option of (values.reset as unknown as string[] | undefined) ?? []) {
        const field = fields[option as keyof typeof fields];
        if (!field)
          throw new UsageError(`--reset takes footer, stop-reply, start-reply or help-reply, not "${option}"`);
        input[field] = null;
      }
      return async () => {
        const settings = await asAdmin(async () =>
          Object.keys(input).length === 0
            ? getOptSettings(accountId)
            : updateOptSettings(accountId, parseOptSettings(input)),
        );
        const rows = (["footer", "stopReply", "startReply", "helpReply"] as const).map((f) => [
          f,
          settings.custom[f] ? "set" : "default",
          settings[f],
        ]);
        return {
          json: { accountId, settings },
          text: formatTable(["TEXT", "SOURCE", "VALUE"], rows),
          note: Object.keys(input).length ? `Opt settings of account ${accountId} updated.` : undefined,
        };
      };
    },
  },
];
