import { randomBytes } from "node:crypto";
import { existsSync, linkSync, mkdirSync, readFileSync, unlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { z } from "zod";
import { processSingleton } from "./process-singletons";

// The only reader of process.env. Every setting has a default that gives a working single-machine install
// (SQLite file + carrier simulator); docs/CONFIGURATION.md and the README list them.
const boolean = z
  .enum(["true", "false", "1", "0", "yes", "no", ""])
  .transform((v) => v === "true" || v === "1" || v === "yes");

// An empty value (`NAME=` in .env) counts as unset.
const unsetIfEmpty = <T extends z.ZodType>(type: T) => z.preprocess((v) => (v === "" ? undefined : v), type);

// 32 random bytes in base64 (or base64url): the key of secrets stored in the database (lib/secrets/secret-box.ts).
const SECRET_KEY_HELP = "must be 32 random bytes in base64: make one with `openssl rand -base64 32`";
const newSecretKey = () => randomBytes(32).toString("base64");
const isSecretKey = (v: string) =>
  /^[A-Za-z0-9+/_-]{43}=?$/.test(v.trim()) && Buffer.from(v.trim(), "base64").length === 32;

const schema = z.object({
  NODE_ENV: z.enum(["development", "production", "test"]).default("production"),
  HOST: z.string().default("0.0.0.0"),
  PORT: z.coerce.number().int().min(0).max(65535).default(3000),
  // The address people and applications use to reach this server; links in responses and the docs page use it.
  PUBLIC_URL: z.url().optional(),
  DATABASE_URL: z.string().default("file:./data/parley.db"),
  // PostgreSQL: a connection on which a request gets no answer for this long is closed and the request fails (a
  // peer gone silent); a session left idle inside a transaction this long is ended by the server.
  DATABASE_TIMEOUT_SECONDS: z.coerce.number().min(1).max(3600).default(30),
  LOG_LEVEL: z.enum(["fatal", "error", "warn", "info", "debug", "trace", "silent"]).default("info"),
  // Secret for portal sessions. When unset, one is generated once and kept in the data directory.
  NEXTAUTH_SECRET: z.string().min(16).optional(),
  PARLEY_DATA_DIR: z.string().default("./data"),
  // The key of secrets stored in the database (TOTP keys, webhook signing secrets; docs/SECURITY.md). When unset, one
  // is generated once and kept in the data directory; several servers must all be given the same one.
  PARLEY_SECRET_KEY: unsetIfEmpty(z.string().refine(isSecretKey, `PARLEY_SECRET_KEY ${SECRET_KEY_HELP}`).optional()),
  // Earlier keys (comma-separated), accepted for reading only while `parley secrets reseal` moves secrets to the new one.
  PARLEY_SECRET_KEY_PREVIOUS: unsetIfEmpty(
    z
      .string()
      .refine((v) => v.split(",").every((k) => k.trim() === "" || isSecretKey(k)), {
        message: `each key of PARLEY_SECRET_KEY_PREVIOUS ${SECRET_KEY_HELP}`,
      })
      .transform((v) =>
        v
          .split(",")
          .map((k) => k.trim())
          .filter(Boolean),
      )
      .optional(),
  ),
  // Behind a reverse proxy: take the client's address from the first X-Forwarded-For entry (sign-in throttling and
  // the audit trail), instead of the connection's.
  TRUST_PROXY: boolean.default(false),
  // Create the demo account, user, numbers and key on an empty database at start-up.
  PARLEY_DEMO: boolean.default(true),
  // Development mode: Next.js compiles pages on demand instead of serving the production build.
  PARLEY_DEV: boolean.default(false),
  // How long a looked-up API key is trusted before it is read again (revocation takes effect within this).
  API_KEY_CACHE_SECONDS: z.coerce.number().min(0).max(300).default(5),
  // Largest accepted request body, in bytes.
  MAX_BODY_BYTES: z.coerce.number().int().min(1024).default(1_048_576),
  // Longest a listing query (GET /v3/messages, the portal's Messages page) may run before it is stopped and the
  // caller told to narrow it (503 QueryTimeout).
  LISTING_TIMEOUT_SECONDS: z.coerce.number().min(0.01).max(600).default(10),
  // PostgreSQL: longest any other statement of the server or worker may run before PostgreSQL cancels it.
  STATEMENT_TIMEOUT_SECONDS: z.coerce.number().min(1).max(3600).default(30),
  // A listing's total above 10,000 matches is counted at most once in this many seconds per account and filter.
  LISTING_TOTAL_CACHE_SECONDS: z.coerce.number().int().min(0).max(3600).default(60),
  // A body filter no index serves reads the rows in order: its total is counted exactly when the query's other
  // filters match at most this many messages, and estimated from the newest this many otherwise (totalEstimated);
  // a number's or reference's count over 10,000 is estimated on its first call from the newest hours holding this many.
  LISTING_SCAN_ROWS: z.coerce.number().int().min(100).max(10_000_000).default(20_000),
  // The delivery worker: a process each server starts and watches, unless told not to (then run `npm run worker`).
  PARLEY_WORKER: boolean.default(true),
  WORKER_POLL_MS: z.coerce.number().int().min(10).max(5000).default(100),
  // A worker's claim on a number's queue lasts this long unless renewed; a dead worker's numbers are taken
  // over after it.
  WORKER_LEASE_SECONDS: z.coerce.number().int().min(5).max(300).default(30),
  // How long to wait for a delivery receipt before the message is `expired`.
  MESSAGE_VALIDITY_HOURS: z.coerce
    .number()
    .min(0.001)
    .max(24 * 14)
    .default(48),
  // Submit attempts after temporary carrier errors before the message is `failed`.
  MAX_SUBMIT_ATTEMPTS: z.coerce.number().int().min(1).max(100).default(8),
  // Waits after temporary submit errors (seconds, comma-separated); the last one repeats.
  RETRY_DELAYS_SECONDS: z
    .string()
    .regex(/^\d+(\.\d+)?(,\d+(\.\d+)?)*$/, "a comma-separated list of seconds")
    .default("5,30,120,600,1800")
    .transform((v) => v.split(",").map(Number)),
  CARRIER: z.enum(["simulator", "smpp"]).default("simulator"),
  SIMULATOR_RECEIPT_DELAY_MS: z.coerce.number().int().min(0).max(3_600_000).default(1000),
  SMPP_HOST: z.string().default("127.0.0.1"),
  SMPP_PORT: z.coerce.number().int().min(1).max(65535).default(2775),
  SMPP_SYSTEM_ID: z.string().default(""),
  SMPP_PASSWORD: z.string().default(""),
  SMPP_SYSTEM_TYPE: z.string().default(""),
  SMPP_WINDOW: z.coerce.number().int().min(1).max(1000).default(10),
  // How long an HTTP provider's API may take to answer a send before its outcome counts as unknown (not resent).
  PROVIDER_TIMEOUT_SECONDS: z.coerce.number().int().min(1).max(300).default(30),
  SMPP_ENQUIRE_LINK_SECONDS: z.coerce.number().int().min(5).max(3600).default(30),
  SMPP_BINDS: z.coerce.number().int().min(1).max(16).default(1),
  SMPP_BIND_MODE: z.enum(["transceiver", "transmitter-receiver"]).default("transceiver"),
  // MMS media (docs/MEDIA.md). Where Parley keeps its copy of every medium: "" (the data directory's media/ folder), a
  // folder (file:/var/lib/parley/media or a path), or an S3-compatible bucket (s3://bucket/prefix).
  MEDIA_STORE: z.string().default(""),
  // S3-compatible stores: the endpoint (empty: AWS itself), region, credentials (empty: the AWS SDK's own chain) and
  // path-style addressing (MinIO, Ceph, most self-hosted stores).
  MEDIA_S3_ENDPOINT: unsetIfEmpty(z.url().optional()),
  MEDIA_S3_REGION: z.string().default("us-east-1"),
  MEDIA_S3_ACCESS_KEY_ID: unsetIfEmpty(z.string().optional()),
  MEDIA_S3_SECRET_ACCESS_KEY: unsetIfEmpty(z.string().optional()),
  MEDIA_S3_FORCE_PATH_STYLE: boolean.default(true),
  // Fetching media from loopback or private addresses (closed networks, tests); unset: WEBHOOK_ALLOW_PRIVATE's value.
  MEDIA_ALLOW_PRIVATE: unsetIfEmpty(boolean.optional()),
  // The most one medium may weigh when uploaded or fetched (refused while streaming, before it is all read).
  MEDIA_MAX_BYTES: z.coerce
    .number()
    .int()
    .min(1024)
    .max(1024 ** 3)
    .default(25 * 1024 * 1024),
  // What the default connection's MMS carry (a connection's own settings may say otherwise): an image is fitted
  // under the first, a message's media together must stay under the second.
  MEDIA_IMAGE_MAX_BYTES: z.coerce
    .number()
    .int()
    .min(10_000)
    .max(100 * 1024 * 1024)
    .default(600 * 1024),
  MEDIA_MESSAGE_MAX_BYTES: z.coerce
    .number()
    .int()
    .min(10_000)
    .max(100 * 1024 * 1024)
    .default(5 * 1024 * 1024),
  // How long fetching one medium may take in all (connecting, redirects and the body).
  MEDIA_FETCH_TIMEOUT_SECONDS: z.coerce.number().min(0.1).max(600).default(30),
  // Webhooks (docs/WEBHOOKS.md). Loopback, private, link-local and metadata addresses are refused unless allowed
  // here: local development and tests point webhooks at 127.0.0.1.
  WEBHOOK_ALLOW_PRIVATE: boolean.default(false),
  // Deliveries in flight at once per process.
  WEBHOOK_CONCURRENCY: z.coerce.number().int().min(1).max(1000).default(64),
  // How often the dispatcher looks for due events (also right after each delivery while there is a backlog).
  WEBHOOK_POLL_MS: z.coerce.number().int().min(10).max(10_000).default(100),
  // The decision: any 2xx within 10 s is accepted.
  WEBHOOK_TIMEOUT_SECONDS: z.coerce.number().min(0.1).max(60).default(10),
  // Waits between attempts (seconds, comma-separated, ±15 % jitter); the last one repeats until the window ends.
  WEBHOOK_RETRY_SECONDS: z
    .string()
    .regex(/^\d+(\.\d+)?(,\d+(\.\d+)?)*$/, "a comma-separated list of seconds")
    .default("5,30,120,600,1800,3600,7200")
    .transform((v) => v.split(",").map(Number)),
  // No attempt is made later than this after the event (or its manual resend): then it is `failed`.
  WEBHOOK_RETRY_WINDOW_SECONDS: z.coerce
    .number()
    .min(1)
    .max(7 * 86400)
    .default(86400),
  // A dispatcher's claim on an event; a killed process's events are retried after it. Longer than the timeout.
  WEBHOOK_LEASE_SECONDS: z.coerce.number().min(1).max(600).default(30),
  // After a secret rotation the old secret keeps signing beside the new one this long.
  WEBHOOK_SECRET_OVERLAP_HOURS: z.coerce
    .number()
    .min(0)
    .max(24 * 30)
    .default(24),
  // Delivered and failed events, with their attempts, are deleted this long after their last scheduled attempt.
  WEBHOOK_RETENTION_DAYS: z.coerce.number().min(0.001).max(3650).default(30),
  // Retention (docs/RETENTION.md): settled messages, with their SDRs, parts and webhook events, are deleted this many
  // days after they were sent or received. Unset (or empty): kept forever. Opt-out records are never deleted.
  MESSAGE_RETENTION_DAYS: z.preprocess(
    (v) => (v === "" ? undefined : v),
    z.coerce.number().int("a whole number of days").min(1).max(36_500).optional(),
  ),
  // How often a worker runs the retention pass (messages and webhook events), with ±20 % jitter.
  RETENTION_INTERVAL_SECONDS: z.coerce.number().min(1).max(86_400).default(300),
  // Live conversation view (docs/CONVERSATIONS.md). Each server reads new changes (SDRs) this often and pushes them
  // to its browsers.
  REALTIME_POLL_MS: z.coerce.number().int().min(20).max(5000).default(100),
  // Several servers: with a Redis URL, servers, workers and the CLI tell each other of new changes through Redis
  // (socket.io's Redis adapter and emitter), so a change written anywhere is pushed at once instead of at the next poll.
  REDIS_URL: z.string().optional(),
  // On PostgreSQL without Redis: the same through PostgreSQL (LISTEN/NOTIFY, socket.io's PostgreSQL adapter).
  REALTIME_PG_ADAPTER: boolean.default(false),
  // Metrics (docs/METRICS.md). With a token, GET /metrics needs `Authorization: Bearer <token>`; without one it
  // answers loopback clients only.
  METRICS_TOKEN: unsetIfEmpty(z.string().min(16, "at least 16 characters").optional()),
  // A separate worker (`npm run worker`) serves its own /metrics on this port when set (0: any free port).
  METRICS_WORKER_PORT: unsetIfEmpty(z.coerce.number().int().min(0).max(65535).optional()),
  // Queue gauges carry the numbers with the most waiting messages, at most this many (plus deployment-wide totals).
  METRICS_QUEUE_NUMBERS: z.coerce.number().int().min(1).max(1000).default(50),
  // Requests a second each API key may make to /v3 (0: no limit), and how many it may make at once before the
  // rate applies (default: the rate, rounded up). Counted per server, or for the deployment in Redis with REDIS_URL.
  API_RATE_LIMIT_PER_SECOND: z.coerce.number().min(0).max(100_000).default(0),
  API_RATE_LIMIT_BURST: unsetIfEmpty(z.coerce.number().int().min(1).max(1_000_000).optional()),
});

export type Env = z.infer<typeof schema>;

/** The secret that signs portal sessions (configured, or the one bootstrapEnv generated and put in process.env). */
export function sessionSecret(): string {
  const secret = env().NEXTAUTH_SECRET ?? process.env.NEXTAUTH_SECRET;
  if (!secret) throw new Error("no portal session secret: bootstrapEnv() was not called");
  return secret;
}

/** The key of secrets stored in the database and the earlier ones still accepted for reading (docs/SECURITY.md). */
export function secretKeys(): { current: Buffer; previous: Buffer[] } {
  const e = env();
  // Without bootstrapEnv (a script or test using lib/ directly): the data directory's key, as the server reads it.
  const key = e.PARLEY_SECRET_KEY ?? keptInDataDir(e.PARLEY_DATA_DIR, "secret-key", newSecretKey);
  if (!isSecretKey(key)) throw new Error(`${join(e.PARLEY_DATA_DIR, "secret-key")} ${SECRET_KEY_HELP}`);
  return {
    current: Buffer.from(key.trim(), "base64"),
    previous: (e.PARLEY_SECRET_KEY_PREVIOUS ?? []).map((k) => Buffer.from(k, "base64")),
  };
}

let cached: Env | undefined;

export function env(): Env {
  if (cached) return cached;
  const parsed = schema.safeParse(process.env);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((i) => `  ${i.path.join(".")}: ${i.message}`).join("\n");
    throw new Error(`Invalid configuration in the environment:\n${problems}`);
  }
  cached = parsed.data;
  return cached;
}

/** Whether media may be fetched from loopback and private addresses: MEDIA_ALLOW_PRIVATE, else WEBHOOK_ALLOW_PRIVATE. */
export function mediaAllowPrivate(): boolean {
  const e = env();
  return e.MEDIA_ALLOW_PRIVATE ?? e.WEBHOOK_ALLOW_PRIVATE;
}

/** Forgets the parsed environment (tests that point the process at another database call this). */
export function reloadEnv(): void {
  cached = undefined;
}

// One per process: Next's bundled copy of this module and server.ts's copy must agree.
const listening = processSingleton("boundPort", (): { __parleyBoundPort?: number } => ({}));

export function publicUrl(): string {
  const e = env();
  const host = e.HOST === "0.0.0.0" || e.HOST === "::" ? "localhost" : e.HOST;
  return (e.PUBLIC_URL ?? `http://${host}:${listening.__parleyBoundPort ?? e.PORT}`).replace(/\/$/, "");
}

/**
 * The server calls this once it listens: with PORT=0 the real port is known only then. next-auth reads
 * NEXTAUTH_URL itself; without PUBLIC_URL it is this server's own address.
 */
export function announceListening(port: number): void {
  listening.__parleyBoundPort = port;
  process.env.NEXTAUTH_URL ??= publicUrl();
}

export type DatabaseProvider = "sqlite" | "postgresql";

export function databaseProvider(url = env().DATABASE_URL): DatabaseProvider {
  if (/^postgres(ql)?:\/\//i.test(url)) return "postgresql";
  if (/^file:/i.test(url)) return "sqlite";
  throw new Error(
    `DATABASE_URL must start with file: (SQLite) or postgresql:// (PostgreSQL), got "${url.split(":")[0]}:"`,
  );
}

/** A secret generated once into the data directory (mode 0600) and read from there by every later start. */
function keptInDataDir(dir: string, name: string, generate: () => string): string {
  const file = join(dir, name);
  if (!existsSync(file)) {
    mkdirSync(dir, { recursive: true });
    // Written whole under a name of its own, then linked into place: when several processes start at once, the
    // first link wins, and none of them can read a file that is not written yet.
    const temp = `${file}.${process.pid}.${randomBytes(6).toString("hex")}`;
    writeFileSync(temp, generate(), { mode: 0o600 });
    try {
      linkSync(temp, file);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
    } finally {
      unlinkSync(temp);
    }
  }
  return readFileSync(file, "utf8").trim();
}

/**
 * Start-up only: reads `.env` if present (the environment wins over the file), and gives next-auth what it reads
 * from process.env itself: NEXTAUTH_URL from PUBLIC_URL, and a NEXTAUTH_SECRET generated once and kept in the
 * data directory when none is configured, so portal sessions survive restarts; the same for PARLEY_SECRET_KEY, the
 * key of the secrets stored in the database.
 */
export function bootstrapEnv(): void {
  if (existsSync(".env")) process.loadEnvFile(".env");
  cached = undefined;
  const e = env();
  if (!e.NEXTAUTH_SECRET) {
    process.env.NEXTAUTH_SECRET = keptInDataDir(e.PARLEY_DATA_DIR, "portal-session-secret", () =>
      randomBytes(32).toString("base64url"),
    );
  }
  if (!e.PARLEY_SECRET_KEY) {
    process.env.PARLEY_SECRET_KEY = keptInDataDir(e.PARLEY_DATA_DIR, "secret-key", newSecretKey);
    cached = undefined; // read again, so that a damaged file is refused with the setting's own message
    env();
  }
}
