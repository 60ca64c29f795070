import { z } from "zod";

// The kinds of carrier connection and what each needs, in one table: the portal's Carriers form, the CLI's options
// and the service's validation all read it. No server imports (the portal's form validates with it too).

export const CONNECTION_TYPES = ["simulator", "smpp", "twilio", "telnyx", "bandwidth", "vonage"] as const;
export type ConnectionType = (typeof CONNECTION_TYPES)[number];

/** The kinds that talk to a provider's HTTP API (send one request per message; callbacks at the connection's URLs). */
export const HTTP_TYPES: readonly ConnectionType[] = ["twilio", "telnyx", "bandwidth", "vonage"];

export interface ConnectionField {
  /** The key in the connection's settings or credentials. */
  key: string;
  /** The form label (the text box's accessible name). */
  label: string;
  /** The CLI option, e.g. --account-sid. */
  option: string;
  /** Kept sealed, never shown after saving (only a masked hint). */
  secret: boolean;
  required: boolean;
  /** A number (SMPP's port, window, binds), or a long text (a private key), or a choice. */
  format?: "integer" | "multiline" | "choice";
  choices?: readonly string[];
  help?: string;
}

const apiUrl = (base: string): ConnectionField => ({
  key: "apiUrl",
  label: "API base address",
  option: "--api-url",
  secret: false,
  required: false,
  help: `Leave empty for ${base}; another address for a regional edge or a test server.`,
});

// What an MMS through the connection may carry (docs/MEDIA.md): images are fitted under the first, a message's media
// together must stay under the second. Empty: MEDIA_IMAGE_MAX_BYTES and MEDIA_MESSAGE_MAX_BYTES (600 KB and 5 MB).
const mmsLimits: ConnectionField[] = [
  {
    key: "mmsImageMaxKb",
    label: "MMS image limit (KB)",
    option: "--mms-image-kb",
    secret: false,
    required: false,
    format: "integer",
    help: "Images are resized and re-encoded to fit under this; empty for 600 KB, which handsets deliver reliably.",
  },
  {
    key: "mmsMessageMaxKb",
    label: "MMS message limit (KB)",
    option: "--mms-message-kb",
    secret: false,
    required: false,
    format: "integer",
    help: "All media of one message together; empty for 5,120 KB (5 MB, Twilio's limit).",
  },
];

export const CONNECTION_KINDS: Record<
  ConnectionType,
  { label: string; defaultApiUrl?: string; fields: ConnectionField[] }
> = {
  simulator: { label: "Simulator (no real phones)", fields: [...mmsLimits] },
  smpp: {
    label: "SMPP",
    fields: [
      { key: "host", label: "Host", option: "--host", secret: false, required: true },
      { key: "port", label: "Port", option: "--port", secret: false, required: true, format: "integer" },
      { key: "systemId", label: "System ID", option: "--system-id", secret: false, required: true },
      { key: "password", label: "Password", option: "--password", secret: true, required: true },
      { key: "systemType", label: "System type", option: "--system-type", secret: false, required: false },
      {
        key: "window",
        label: "Window per bind",
        option: "--window",
        secret: false,
        required: false,
        format: "integer",
      },
      { key: "binds", label: "Binds", option: "--binds", secret: false, required: false, format: "integer" },
      {
        key: "bindMode",
        label: "Bind mode",
        option: "--bind-mode",
        secret: false,
        required: false,
        format: "choice",
        choices: ["transceiver", "transmitter-receiver"],
      },
    ],
  },
  twilio: {
    label: "Twilio",
    defaultApiUrl: "https://api.twilio.com",
    fields: [
      { key: "accountSid", label: "Account SID", option: "--account-sid", secret: false, required: true },
      { key: "authToken", label: "Auth token", option: "--auth-token", secret: true, required: true },
      apiUrl("https://api.twilio.com"),
      ...mmsLimits,
    ],
  },
  telnyx: {
    label: "Telnyx",
    defaultApiUrl: "https://api.telnyx.com",
    fields: [
      { key: "apiKey", label: "API key", option: "--api-key", secret: true, required: true },
      {
        key: "publicKey",
        label: "Public key",
        option: "--public-key",
        secret: false,
        required: true,
        help: "The base64 Ed25519 public key from the Telnyx portal (Keys & Credentials), to check its webhooks.",
      },
      {
        key: "messagingProfileId",
        label: "Messaging profile ID",
        option: "--messaging-profile-id",
        secret: false,
        required: false,
      },
      apiUrl("https://api.telnyx.com"),
      ...mmsLimits,
    ],
  },
  bandwidth: {
    label: "Bandwidth",
    defaultApiUrl: "https://messaging.bandwidth.com",
    fields: [
      { key: "accountId", label: "Account ID", option: "--account-id", secret: false, required: true },
      { key: "username", label: "API username", option: "--username", secret: false, required: true },
      { key: "password", label: "API password", option: "--password", secret: true, required: true },
      { key: "applicationId", label: "Application ID", option: "--application-id", secret: false, required: true },
      {
        key: "callbackUsername",
        label: "Callback username",
        option: "--callback-username",
        secret: false,
        required: true,
      },
      {
        key: "callbackPassword",
        label: "Callback password",
        option: "--callback-password",
        secret: true,
        required: true,
      },
      apiUrl("https://messaging.bandwidth.com"),
      ...mmsLimits,
    ],
  },
  vonage: {
    label: "Vonage",
    defaultApiUrl: "https://api.nexmo.com",
    fields: [
      { key: "apiKey", label: "API key", option: "--api-key", secret: false, required: true },
      { key: "apiSecret", label: "API secret", option: "--api-secret", secret: true, required: false },
      { key: "signatureSecret", label: "Signature secret", option: "--signature-secret", secret: true, required: true },
      { key: "applicationId", label: "Application ID", option: "--application-id", secret: false, required: false },
      {
        key: "privateKey",
        label: "Private key",
        option: "--private-key-file",
        secret: true,
        required: false,
        format: "multiline",
        help: "The application's private key (PEM), to sign its API calls; or give the API secret instead.",
      },
      apiUrl("https://api.nexmo.com"),
      ...mmsLimits,
    ],
  },
};

export const connectionNameField = z
  .string({ error: "Give the connection a name." })
  .trim()
  .min(1, "Give the connection a name.")
  .max(60, "At most 60 characters.")
  .regex(
    /^[A-Za-z0-9][A-Za-z0-9 ._-]*$/,
    "Letters, digits, spaces, dots, dashes and underscores; start with a letter or digit.",
  );

const MAX_VALUE = { multiline: 10_000, other: 2_000 };

/** A field's value checked: trimmed text, an integer in range, a choice, or an http(s) base address. */
export function checkFieldValue(field: ConnectionField, raw: unknown): { value?: string | number; error?: string } {
  if (raw === undefined || raw === null || (typeof raw === "string" && raw.trim() === "")) return {};
  if (field.format === "integer") {
    const n = typeof raw === "number" ? raw : Number(String(raw).trim());
    const [min, max] =
      field.key === "port"
        ? [1, 65_535]
        : field.key === "binds"
          ? [1, 16]
          : field.key.startsWith("mms")
            ? [10, 102_400]
            : [1, 1000];
    if (!Number.isInteger(n) || n < min || n > max)
      return { error: `${field.label} must be a whole number from ${min} to ${max}.` };
    return { value: n };
  }
  if (typeof raw !== "string") return { error: `${field.label} must be text.` };
  const value = raw.trim();
  if (value.length > (field.format === "multiline" ? MAX_VALUE.multiline : MAX_VALUE.other))
    return { error: `${field.label} is too long.` };
  if (field.format === "choice" && !field.choices!.includes(value))
    return { error: `${field.label} is one of ${field.choices!.join(", ")}.` };
  if (field.key === "apiUrl") {
    let url: URL;
    try {
      url = new URL(value);
    } catch {
      return { error: `${field.label} must be an http or https address, such as https://api.example.com.` };
    }
    if (
      (url.protocol !== "https:" && url.protocol !== "http:") ||
      url.username ||
      url.password ||
      url.search ||
      url.hash
    )
      return { error: `${field.label} must be an http or https address without credentials, query or fragment.` };
    return { value: url.href.replace(/\/+$/, "") };
  }
  return { value };
}

export interface ConnectionValues {
  settings: Record<string, string | number>;
  credentials: Record<string, string>;
}

/**
 * The settings and credentials of a kind from raw values (a form's, the CLI's): every field checked, the required
 * ones present unless `existing` already holds them (an edit leaves an empty secret as it was). Errors by field key.
 */
export function readConnectionValues(
  type: ConnectionType,
  raw: Record<string, unknown>,
  existing?: { settings: Record<string, unknown>; credentialKeys: readonly string[] },
): { values: ConnectionValues; errors: Record<string, string> } {
  const values: ConnectionValues = { settings: {}, credentials: {} };
  const errors: Record<string, string> = {};
  for (const field of CONNECTION_KINDS[type].fields) {
    const { value, error } = checkFieldValue(field, raw[field.key]);
    if (error) {
      errors[field.key] = error;
      continue;
    }
    if (value === undefined) {
      // A secret left empty keeps its saved value; a setting given empty is cleared, so a required one is missing.
      const cleared = !field.secret && field.key in raw;
      const kept =
        !cleared &&
        (field.secret ? existing?.credentialKeys.includes(field.key) : existing?.settings[field.key] !== undefined);
      if (field.required && !kept) errors[field.key] = `${field.label} is required.`;
      continue;
    }
    if (field.secret) values.credentials[field.key] = String(value);
    else values.settings[field.key] = value;
  }
  if (type === "vonage" && !errors.apiSecret && !errors.privateKey) {
    const has = (key: string) => values.credentials[key] !== undefined || existing?.credentialKeys.includes(key);
    if (
      !has("apiSecret") &&
      !(has("privateKey") && (values.settings.applicationId ?? existing?.settings.applicationId))
    )
      errors.apiSecret = "Give the API secret, or an application ID with its private key.";
  }
  return { values, errors };
}

/** A secret as the portal shows it once saved: its last four characters at most, never more than a quarter of it. */
export function maskSecret(secret: string): string {
  const shown = secret.length >= 16 ? 4 : secret.length >= 8 ? 2 : 0;
  return `••••${shown > 0 ? secret.slice(-shown) : ""}`;
}
