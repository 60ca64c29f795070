import { spawn } from "node:child_process";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServer, type RunningServer } from "../helpers/server";
import { createTestDatabase, type TestDatabase } from "../helpers/test-database";
import { call } from "../helpers/factories";

// The admin CLI as an operator runs it (its bundle, what `npm run parley --` runs, without npm's header
// lines on stdout), against the same database as a real server, whose answers prove the CLI's work. Each run costs a
// process start, so independent runs go in parallel.
const root = join(import.meta.dirname, "..", "..");
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const STACK_FRAME = /^\s+at /m;

let database: TestDatabase;
let server: RunningServer;

interface CliRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

function parley(args: string[], extraEnv: Record<string, string> = {}): Promise<CliRun> {
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    DATABASE_URL: database.url,
    PUBLIC_URL: server.baseUrl,
    ...extraEnv,
  };
  if (!("PARLEY_PASSWORD" in extraEnv)) delete env.PARLEY_PASSWORD;
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [join(root, ".next/parley/cli.mjs"), ...args], {
      cwd: root,
      env,
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    child.once("error", reject);
    child.once("close", (code) => resolve({ code, stdout, stderr }));
  });
}

function send(apiKey: string, accountId: string, from: string) {
  return call(server, "POST", "/v3/messages", {
    headers: { apikey: apiKey, "content-type": "application/json" },
    body: { accountId, from, to: "14155550123", body: "Sent with a key from the CLI" },
  });
}

/** A user error: its reason in one line on stderr, nothing on stdout, no stack trace. */
function expectRefusal(run: CliRun, code: number, message: string | RegExp): void {
  expect(run.code, run.stderr).toBe(code);
  expect(run.stdout).toBe("");
  expect(run.stderr.split("\n")[0]).toMatch(message);
  expect(run.stderr).not.toMatch(STACK_FRAME);
}

beforeAll(async () => {
  database = await createTestDatabase();
  // A key cache of 0 s: a revoked key is refused on the very next request.
  server = await startServer({ database, env: { API_KEY_CACHE_SECONDS: "0" } });
});

afterAll(async () => {
  await server?.stop();
  await database?.drop();
});

let demo: { accountId: string; apiKey: string; email: string; numbers: string[] };
let acme: { accountId: string; apiKey: string; keyId: string; number: string };

describe("parley CLI", { timeout: 120_000 }, () => {
  it("demo --json prints exactly one JSON object whose key sends from a demo number", async () => {
    const run = await parley(["demo", "--json"]);
    expect(run.code, run.stderr).toBe(0);
    const credentials = JSON.parse(run.stdout); // the whole of stdout: nothing else is printed there
    expect(credentials).toMatchObject({
      portalUrl: `${server.baseUrl}/`,
      email: "admin@demo.parley",
      accountId: expect.stringMatching(UUID),
      apiKey: expect.stringMatching(/^pk_[0-9A-Za-z]{32}$/),
      numbers: ["+12025550100", "+12025550101"],
    });
    expect(credentials.password.length).toBeGreaterThanOrEqual(12);
    expect(run.stderr).toMatch(/shown this once/);
    demo = credentials;

    const res = await send(demo.apiKey, demo.accountId, demo.numbers[0]!);
    expect(res.status).toBe(200);
    expect(res.json.status).toBe("MessageCreateSuccessful");
    expect(res.json.data.error).toBeUndefined();
    expect(res.json.data.messageInfo[0]).toMatchObject({ status: "accepted", to: "+14155550123" });
  });

  it("account create, key create and number add give an account that can send", async () => {
    const account = await parley([
      "account",
      "create",
      "--name",
      "Acme",
      "--time-zone",
      "Europe/Paris",
      "--rate",
      "2.5",
    ]);
    expect(account.code, account.stderr).toBe(0);
    const accountId = account.stdout.trim(); // the id alone, for `ID=$(parley account create …)`
    expect(accountId).toMatch(UUID);

    const number = "+12125550187";
    const [key, added] = await Promise.all([
      parley(["key", "create", "--account", accountId, "--name", "ci", "--expires", "2099-12-31", "--json"]),
      parley(["number", "add", "--account", accountId, number]),
    ]);
    expect(key.code, key.stderr).toBe(0);
    const created = JSON.parse(key.stdout);
    expect(created).toMatchObject({
      accountId,
      name: "ci",
      id: expect.stringMatching(UUID),
      expiresAt: "2099-12-31T00:00:00.000Z",
    });
    expect(key.stderr).toMatch(/cannot be shown again/);
    expect(added.code, added.stderr).toBe(0);
    expect(added.stdout).toContain(number);
    acme = { accountId, apiKey: created.key, keyId: created.id, number };

    const res = await send(acme.apiKey, accountId, number);
    expect(res.status).toBe(200);
    expect(res.json.data.error).toBeUndefined();
    expect(res.json.data.messageInfo[0]).toMatchObject({ status: "accepted" });
  });

  it("key list shows a key by prefix and last four characters, never the secret", async () => {
    const run = await parley(["key", "list", "--account", acme.accountId]);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout + run.stderr).not.toContain(acme.apiKey);
    const row = run.stdout.split("\n").find((line) => line.startsWith(acme.keyId));
    expect(row).toContain(`${acme.apiKey.slice(0, 7)}…${acme.apiKey.slice(-4)}`);
    expect(row).toMatch(/ ci /);
    expect(row).toContain("2099-12-31"); // expires
  });

  it("number remove: sending from the number is refused FromNotOwned", async () => {
    const run = await parley(["number", "remove", "--account", acme.accountId, acme.number]);
    expect(run.code, run.stderr).toBe(0);
    const res = await send(acme.apiKey, acme.accountId, acme.number);
    expect(res.status).toBe(200);
    expect(res.json.data.error).toBe("FromNotOwned");
    expect(res.json.data.messageInfo[0]).toMatchObject({ status: "rejected", reason: "FromNotOwned" });
  });

  it("key revoke, by id or by the key itself: the server answers 401", async () => {
    const [byId, byKey] = await Promise.all([
      parley(["key", "revoke", acme.keyId]),
      parley(["key", "revoke", demo.apiKey]),
    ]);
    expect(byId.code, byId.stderr).toBe(0);
    expect(byKey.code, byKey.stderr).toBe(0);
    expect(byId.stdout).toMatch(/^Revoked API key/);
    expect(byKey.stdout).not.toContain(demo.apiKey);
    expect((await send(acme.apiKey, acme.accountId, acme.number)).status).toBe(401);
    expect((await send(demo.apiKey, demo.accountId, demo.numbers[0]!)).status).toBe(401);
  });

  it("user create generates a password when none is given, and refuses a bad email, a duplicate and a short password", async () => {
    const [generated, badEmail, duplicate, shortPassword] = await Promise.all([
      parley(["user", "create", "--account", acme.accountId, "--email", "Ops@Acme.test", "--role", "agent", "--json"]),
      parley(["user", "create", "--account", acme.accountId, "--email", "not-an-email", "--role", "admin"]),
      parley(["user", "create", "--account", acme.accountId, "--email", demo.email, "--role", "admin"]),
      parley(["user", "create", "--account", acme.accountId, "--email", "short@acme.test", "--role", "admin"], {
        PARLEY_PASSWORD: "short",
      }),
    ]);
    expect(generated.code, generated.stderr).toBe(0);
    const user = JSON.parse(generated.stdout);
    expect(user).toMatchObject({
      email: "ops@acme.test",
      role: "agent",
      accountId: acme.accountId,
      id: expect.stringMatching(UUID),
    });
    expect(user.password.length).toBeGreaterThanOrEqual(20);
    expectRefusal(badEmail, 1, /^parley: "not-an-email" is not an email address$/);
    expectRefusal(duplicate, 1, /^parley: a user admin@demo\.parley exists already$/);
    expectRefusal(shortPassword, 1, /at least 8 characters/); // read from PARLEY_PASSWORD, not generated
  });

  it("unknown commands and missing options exit 2 with a usage hint on stderr", async () => {
    const [unknown, missing] = await Promise.all([parley(["frobnicate"]), parley(["key", "create", "--name", "ci"])]);
    expectRefusal(unknown, 2, /^parley: unknown command "frobnicate"$/);
    for (const command of [
      "account create",
      "account list",
      "key create",
      "key list",
      "key revoke",
      "number add",
      "number remove",
      "number list",
      "user create",
      "demo",
      "help",
    ]) {
      expect(unknown.stderr).toContain(`parley ${command}`);
    }
    expectRefusal(missing, 2, /^parley: missing --account <id>$/);
    expect(missing.stderr).toContain("Usage: parley key create --account <id>");
  });
});
