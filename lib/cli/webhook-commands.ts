import { AdminError } from "../accounts/manage-accounts";
import { ApiError } from "../api/api-error";
import {
  getWebhookSettings,
  removeWebhook,
  revealWebhookSecrets,
  rotateWebhookSecret,
  setWebhookSettings,
  type WebhookSettings,
} from "../webhooks/manage-webhook";
import { listWebhookAttempts, resendWebhookEvents } from "../webhooks/webhook-log";
import type { Command } from "./command";
import { formatDate, formatTable } from "./format-output";
import { optionalString, requiredString, UsageError, type OptionSpec } from "./read-arguments";

// `parley webhook …`: the account's webhook URL, header and signing secrets, the delivery log, resends.

const accountOption = { account: { type: "string" } } satisfies OptionSpec;

/** The services' refusals (a URL the guard refuses, an unknown account) are an operator's one-line errors. */
async function asAdmin<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (error instanceof ApiError) throw new AdminError(error.detail ?? error.message);
    throw error;
  }
}

/** "Name: value" → its two parts. */
function headerOption(value: string | undefined): { headerName: string | null; headerValue: string | null } {
  if (value === undefined) return { headerName: null, headerValue: null };
  const colon = value.indexOf(":");
  if (colon <= 0 || value.slice(colon + 1).trim() === "") {
    throw new UsageError(`--header must be "Name: value" (such as "Authorization: Bearer abc"), not "${value}"`);
  }
  return { headerName: value.slice(0, colon).trim(), headerValue: value.slice(colon + 1).trim() };
}

/** The settings with each secret in full: the CLI runs on the server, as its operator. */
async function withSecrets(settings: WebhookSettings) {
  const secrets = await revealWebhookSecrets(settings.accountId);
  return { ...settings, secrets };
}

function describe(settings: Awaited<ReturnType<typeof withSecrets>>): string {
  if (!settings.url)
    return `Account ${settings.accountId} has no webhook. Set one: parley webhook set --account ${settings.accountId} --url <url>`;
  const lines = [
    `URL:     ${settings.url}`,
    ...(settings.failoverUrl ? [`Failover: ${settings.failoverUrl}`] : []),
    `Header:  ${settings.headerName ? `${settings.headerName}: ${settings.headerValueHint}` : "(none)"}`,
    ...settings.secrets.map(
      (s, i) =>
        `${i === 0 ? "Secrets:" : "        "} ${s.secret}  ${s.expiresAt ? `(previous, signs until ${formatDate(new Date(s.expiresAt))})` : "(current)"}`,
    ),
  ];
  return lines.join("\n");
}

export const webhookCommands: Command[] = [
  {
    name: "webhook set",
    synopsis: '--account <id> --url <url> [--failover-url <url>] [--header "Name: value"]',
    summary:
      "Set where the account's events are posted, a failover URL tried at once when an attempt there fails (without --failover-url: none), and the one header sent with them (without --header: none). The first setting creates the signing secret. Loopback and private addresses need WEBHOOK_ALLOW_PRIVATE=true.",
    options: {
      ...accountOption,
      url: { type: "string" },
      "failover-url": { type: "string" },
      header: { type: "string" },
    },
    prepare({ values }) {
      const accountId = requiredString(values, "account", "<id>");
      const url = requiredString(values, "url", "<url>");
      const failoverUrl = optionalString(values, "failover-url") ?? null;
      const header = headerOption(optionalString(values, "header"));
      return async () => {
        const settings = await asAdmin(async () =>
          withSecrets(await setWebhookSettings(accountId, { url, failoverUrl, ...header })),
        );
        return {
          json: { webhook: settings },
          text: describe(settings),
          note: `Events of account ${accountId} now go to ${settings.url}. Receivers verify the webhook-signature header with the secret (docs/WEBHOOKS.md).`,
        };
      };
    },
  },
  {
    name: "webhook show",
    synopsis: "--account <id>",
    summary: "Show the account's webhook URL, header (value masked) and signing secrets.",
    options: accountOption,
    prepare({ values }) {
      const accountId = requiredString(values, "account", "<id>");
      return async () => {
        const settings = await asAdmin(async () => withSecrets(await getWebhookSettings(accountId)));
        return { json: { webhook: settings }, text: describe(settings) };
      };
    },
  },
  {
    name: "webhook remove",
    synopsis: "--account <id>",
    summary: "Remove the account's webhook: no events are written for it from now on.",
    options: accountOption,
    prepare({ values }) {
      const accountId = requiredString(values, "account", "<id>");
      return async () => {
        const { webhook } = await asAdmin(() => removeWebhook(accountId));
        return { json: { webhook }, text: `Account ${accountId} has no webhook now.` };
      };
    },
  },
  {
    name: "webhook rotate-secret",
    synopsis: "--account <id> [--overlap-hours <h>]",
    summary:
      "Make a new signing secret and print it; the previous one keeps signing beside it for the overlap (default 24 h).",
    options: { ...accountOption, "overlap-hours": { type: "string" } },
    prepare({ values }) {
      const accountId = requiredString(values, "account", "<id>");
      const overlap = optionalString(values, "overlap-hours");
      const overlapHours = overlap === undefined ? undefined : Number(overlap);
      if (
        overlapHours !== undefined &&
        (overlap!.trim() === "" || !Number.isFinite(overlapHours) || overlapHours < 0)
      ) {
        throw new UsageError(`--overlap-hours must be a number of hours (0 or more), not "${overlap}"`);
      }
      return async () => {
        const settings = await asAdmin(async () => withSecrets(await rotateWebhookSecret(accountId, { overlapHours })));
        const current = settings.secrets[0]!;
        return {
          json: { webhook: settings, secret: current.secret },
          text: current.secret,
          note: describe(settings),
        };
      };
    },
  },
  {
    name: "webhook attempts",
    synopsis: "--account <id> [--event <id>] [--failed] [--limit <n>]",
    summary: "The delivery log: every attempt with its time, URL, HTTP status, latency and error, newest first.",
    options: { ...accountOption, event: { type: "string" }, failed: { type: "boolean" }, limit: { type: "string" } },
    prepare({ values }) {
      const accountId = requiredString(values, "account", "<id>");
      const eventId = optionalString(values, "event");
      const limit = Number(optionalString(values, "limit") ?? "50");
      if (!Number.isInteger(limit) || limit < 1 || limit > 1000) throw new UsageError("--limit must be 1 to 1000");
      return async () => {
        const attempts = await asAdmin(() =>
          listWebhookAttempts(accountId, { eventId, limit, outcome: values.failed ? "failed" : undefined }),
        );
        const rows = attempts.map((a) => [
          formatDate(new Date(a.at)),
          a.eventId,
          a.httpStatus === null ? "-" : String(a.httpStatus),
          `${a.latencyMs} ms`,
          a.url,
          a.error ?? "",
        ]);
        return {
          json: { accountId, attempts },
          text: rows.length
            ? formatTable(["AT", "EVENT", "HTTP", "LATENCY", "URL", "ERROR"], rows)
            : `No webhook attempts for account ${accountId}.`,
        };
      };
    },
  },
  {
    name: "webhook resend",
    synopsis: "--account <id> (--event <id> | --since <ISO> --until <ISO>)",
    summary: "Send one event again, or every failed event created in a time range.",
    options: { ...accountOption, event: { type: "string" }, since: { type: "string" }, until: { type: "string" } },
    prepare({ values }) {
      const accountId = requiredString(values, "account", "<id>");
      const eventId = optionalString(values, "event");
      const since = optionalString(values, "since");
      const until = optionalString(values, "until");
      if (eventId ? since || until : !(since && until)) {
        throw new UsageError("give either --event <id>, or both --since and --until");
      }
      const dates = [since, until].map((d) => (d === undefined ? undefined : new Date(d)));
      if (dates.some((d) => d !== undefined && Number.isNaN(d.getTime()))) {
        throw new UsageError("--since and --until must be ISO 8601 date-times such as 2026-11-22T03:00:00Z");
      }
      return async () => {
        const { resent } = await asAdmin(() =>
          resendWebhookEvents(accountId, eventId ? { eventId } : { since: dates[0]!, until: dates[1]! }),
        );
        return { json: { accountId, resent }, text: String(resent), note: `${resent} event(s) will be sent again.` };
      };
    },
  },
];
