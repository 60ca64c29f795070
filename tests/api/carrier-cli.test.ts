import { spawn } from "node:child_process";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServer, type RunningServer } from "../helpers/server";
import {
  bindTo,
  call,
  createTestAccount,
  randomNumber,
  releaseFactories,
  type TestAccount,
} from "../helpers/factories";
import { startFakeTwilio, type FakeTwilio } from "../helpers/fake-twilio";
import { db } from "@/lib/db/client";

// `parley carrier …` and `parley number … --carrier` as an operator runs them, against a real server's database:
// the contract other tools drive Parley through (the flags, the JSON printed, the URLs from PUBLIC_URL).

const root = join(import.meta.dirname, "..", "..");
let server: RunningServer;
let twilio: FakeTwilio;
let account: TestAccount;

function parley(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [join(root, ".next/parley/cli.mjs"), ...args], {
      cwd: root,
      env: {
        ...process.env,
        DATABASE_URL: server.database.url,
        PUBLIC_URL: "https://sms.example.org",
        LOG_LEVEL: "warn",
      },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, stdout, stderr }));
  });
}

beforeAll(async () => {
  twilio = await startFakeTwilio();
  server = await startServer();
  account = await createTestAccount(server, { numbers: 1 });
}, 120_000);

afterAll(async () => {
  await releaseFactories();
  await server?.stop();
  await twilio?.close();
});

describe("parley carrier", () => {
  it("adds a Twilio connection and prints its id and absolute callback URLs, keeping the token sealed", async () => {
    const run = await parley([
      "carrier", "add", "--account", account.accountId, "--type", "twilio", "--name", "twilio-main",
      "--account-sid", twilio.accountSid, "--auth-token", twilio.authToken, "--api-url", twilio.url, "--json",
    ]); // prettier-ignore
    expect(run.code, run.stderr).toBe(0);
    const added = JSON.parse(run.stdout);
    expect(added).toMatchObject({ name: "twilio-main", type: "twilio" });
    expect(added.id).toMatch(/^cc_[A-Za-z0-9]{20}$/);
    expect(added.inboundUrl).toBe(`https://sms.example.org/carriers/${added.id}/inbound`);
    expect(added.statusUrl).toBe(`https://sms.example.org/carriers/${added.id}/status`);
    expect(run.stdout).not.toContain(twilio.authToken);
    await bindTo(server);
    const row = await db().carrierConnection.findUniqueOrThrow({ where: { id: added.id } });
    expect(row.credentials).toMatch(/^v2\./);
    expect(row.credentials).not.toContain(twilio.authToken);
    // Covered by the key rotation's reseal: already under the current key, and it opens.
    const reseal = await parley(["secrets", "reseal", "--json"]);
    expect(reseal.code, reseal.stderr).toBe(0);
    expect(JSON.parse(reseal.stdout).carrierCredentials).toEqual({ resealed: 0, current: 1, unreadable: 0 });
  }, 60_000);

  it("lists, tests, refuses bad input with one line, and routes numbers with --carrier", async () => {
    // Independent runs go in parallel: each costs a process start.
    const [listRun, test, bad, wrongKind] = await Promise.all([
      parley(["carrier", "list", "--account", account.accountId, "--json"]),
      parley(["carrier", "test", "--account", account.accountId, "twilio-main"]),
      parley(["carrier", "add", "--account", account.accountId, "--type", "twilio", "--name", "x", "--json"]),
      parley([
        "carrier",
        "add",
        "--account",
        account.accountId,
        "--type",
        "telnyx",
        "--name",
        "t",
        "--account-sid",
        "AC1",
      ]),
    ]);
    const list = JSON.parse(listRun.stdout);
    expect(list.carriers.map((c: { name: string }) => c.name)).toEqual(["twilio-main"]);
    expect(test.stdout.trim()).toBe('Twilio account "Clinic" is active, balance 12.34 USD.');
    expect(bad.code).not.toBe(0);
    expect(bad.stderr).toMatch(/--account-sid: Account SID is required/);
    expect(bad.stderr).not.toMatch(/^\s+at /m);
    expect(wrongKind.stderr).toMatch(/--account-sid is not an option of a telnyx connection/);

    const number = `+${randomNumber()}`;
    const added = await parley([
      "number",
      "add",
      "--account",
      account.accountId,
      "--carrier",
      "twilio-main",
      number,
      "--json",
    ]);
    expect(added.code, added.stderr).toBe(0);
    expect(JSON.parse(added.stdout)).toMatchObject({ number, carrier: "twilio-main", created: true });
    const unknown = await parley(["number", "update", "--account", account.accountId, "--carrier", "nope", number]);
    expect(unknown.stderr).toMatch(/no carrier connection "nope" in this account/);
    const v3 = await call(server, "GET", `/v3/numbers?accountId=${account.accountId}`, { headers: account.headers });
    expect(v3.json.data.numbers.find((n: { number: string }) => `+${n.number}` === number).carrier).toBe("twilio-main");

    const refused = await parley(["carrier", "remove", "--account", account.accountId, "twilio-main"]);
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toMatch(/1 number is routed to "twilio-main": route it elsewhere first/);
    const back = await parley([
      "number",
      "update",
      "--account",
      account.accountId,
      "--carrier",
      "default",
      number,
      "--json",
    ]);
    expect(JSON.parse(back.stdout).carrier).toBeNull();
  }, 120_000);

  it("imports the numbers the Twilio account holds, setting their SmsUrl there; searches, buys and releases", async () => {
    const held = `+1212555${String(Date.now() % 10000).padStart(4, "0")}`;
    twilio.held.push({ sid: `PN${"1".repeat(32)}`, phone_number: held, friendly_name: "Front desk", sms_url: "" });
    const listed = JSON.parse(
      (await parley(["carrier", "numbers", "--account", account.accountId, "twilio-main", "--json"])).stdout,
    );
    expect(listed.numbers).toEqual([
      expect.objectContaining({ number: held, status: "available", label: "Front desk" }),
    ]);
    const imported = await parley(["carrier", "import", "--account", account.accountId, "twilio-main", "--json"]);
    expect(imported.code, imported.stderr).toBe(0);
    expect(JSON.parse(imported.stdout).imported).toEqual([held]);
    const connection = JSON.parse((await parley(["carrier", "list", "--account", account.accountId, "--json"])).stdout)
      .carriers[0];
    expect(twilio.held[0]!.sms_url).toBe(connection.inboundUrl);
    const numbers = await call(server, "GET", `/v3/numbers?accountId=${account.accountId}`, {
      headers: account.headers,
    });
    expect(numbers.json.data.numbers.find((n: { number: string }) => `+${n.number}` === held)).toMatchObject({
      label: "Front desk",
      carrier: "twilio-main",
    });

    twilio.forSale.push({ phone_number: "+14155550142", locality: "San Francisco", region: "CA" });
    const search = await parley([
      "carrier",
      "search",
      "--account",
      account.accountId,
      "--country",
      "US",
      "--area-code",
      "415",
      "twilio-main",
      "--json",
    ]);
    expect(JSON.parse(search.stdout).numbers).toEqual([{ number: "+14155550142", locality: "San Francisco, CA" }]);
    const bought = await parley([
      "carrier",
      "buy",
      "--account",
      account.accountId,
      "twilio-main",
      "+14155550142",
      "--json",
    ]);
    expect(bought.code, bought.stderr).toBe(0);
    expect(twilio.held.some((n) => n.phone_number === "+14155550142" && n.sms_url === connection.inboundUrl)).toBe(
      true,
    );
    const released = await parley(["carrier", "release", "--account", account.accountId, "+14155550142"]);
    expect(released.code, released.stderr).toBe(0);
    expect(twilio.held.some((n) => n.phone_number === "+14155550142")).toBe(false);
    const after = await call(server, "GET", `/v3/numbers?accountId=${account.accountId}`, { headers: account.headers });
    expect(after.json.data.numbers.some((n: { number: string }) => n.number === "14155550142")).toBe(false);
  }, 120_000);

  it("removes a connection no number is routed to", async () => {
    await parley([
      "number",
      "update",
      "--account",
      account.accountId,
      "--carrier",
      "default",
      `+${account.numbers[0]}`,
    ]);
    const numbers = JSON.parse(
      (await parley(["number", "list", "--account", account.accountId, "--json"])).stdout,
    ).numbers;
    for (const n of numbers.filter((x: { carrier: string | null }) => x.carrier))
      await parley(["number", "update", "--account", account.accountId, "--carrier", "default", n.number]);
    const removed = await parley(["carrier", "remove", "--account", account.accountId, "twilio-main", "--json"]);
    expect(removed.code, removed.stderr).toBe(0);
    expect(JSON.parse(removed.stdout)).toMatchObject({ name: "twilio-main", removed: true });
    const list = JSON.parse((await parley(["carrier", "list", "--account", account.accountId, "--json"])).stdout);
    expect(list.carriers).toEqual([]);
  }, 120_000);
});
