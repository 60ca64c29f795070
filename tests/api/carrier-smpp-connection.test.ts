import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServer, type RunningServer } from "../helpers/server";
import { call, createTestAccount, randomNumber, releaseFactories, type TestAccount } from "../helpers/factories";
import { has, statuses, waitForSdrs, waitUntil } from "../helpers/wait-for";
import { MultiBindSmsc } from "../integration/helpers/multi-bind-smsc";

// An SMPP connection as data beside the deployment's default (the simulator): one account's number routed to its
// aggregator over two transmitters and two receivers, the other number still on the default. A real SMSC on loopback.

let server: RunningServer;
let smsc: MultiBindSmsc;
let account: TestAccount;

beforeAll(async () => {
  smsc = await MultiBindSmsc.start();
  server = await startServer({
    env: { PARLEY_WORKER: "true", WORKER_POLL_MS: "20", SIMULATOR_RECEIPT_DELAY_MS: "100" },
  });
  account = await createTestAccount(server, { numbers: 2, rateLimitPerSecond: 20 });
  const added = await call(server, "POST", `/api/admin/accounts/${account.accountId}/carriers`, {
    headers: account.headers,
    body: {
      type: "smpp",
      name: "aggregator",
      fields: {
        host: "127.0.0.1",
        port: smsc.port,
        systemId: smsc.systemId,
        password: smsc.password,
        binds: 2,
        bindMode: "transmitter-receiver",
      },
    },
  });
  expect(added.status, added.text).toBe(200);
  expect(added.json.data.carrier.credentials).toEqual({ password: "••••" });
  const routed = await call(server, "PATCH", `/api/admin/accounts/${account.accountId}/numbers/${account.numbers[0]}`, {
    headers: account.headers,
    body: { carrier: "aggregator" },
  });
  expect(routed.status, routed.text).toBe(200);
}, 120_000);

afterAll(async () => {
  await releaseFactories();
  await server?.stop();
  await smsc?.close();
});

async function send(from: string, body: string): Promise<string> {
  const res = await call(server, "POST", "/v3/messages", {
    headers: account.headers,
    body: { accountId: account.accountId, from, to: randomNumber(), body },
  });
  expect(res.status, res.text).toBe(200);
  return res.json.data.messageInfo[0].messageId as string;
}

describe("an SMPP connection", () => {
  it("carries its number's messages over its own binds, and a receipt on a receiver settles them", async () => {
    const messageId = await send(account.numbers[0]!, "Routed to the aggregator");
    const submit = await waitUntil(
      "the submit at the SMSC",
      () => smsc.submits.find((s) => s.text === "Routed to the aggregator"),
      20_000,
    );
    expect(submit.session.bindAs).toBe("transmitter");
    await waitUntil("two transmitters and two receivers bound", () => smsc.bound.length === 4, 10_000);
    expect(smsc.bound.map((s) => s.bindAs).sort()).toEqual(["receiver", "receiver", "transmitter", "transmitter"]);
    await waitForSdrs(server, account, messageId, has("wait_dlr"));
    const receiver = smsc.bound.find((s) => s.bindAs === "receiver")!;
    const receipt = `id:${submit.messageId} sub:001 dlvrd:001 submit date:2611251200 done date:2611251201 stat:DELIVRD err:000 text:`;
    expect(await smsc.deliver(receiver, { esm_class: 0x04, short_message: Buffer.from(receipt) })).toBe(0);
    const records = await waitForSdrs(server, account, messageId, has("dlr_received"));
    expect(statuses(records)).toContain("delivered");
  });

  it("leaves the account's other number on the default connection", async () => {
    const messageId = await send(account.numbers[1]!, "Through the simulator");
    const records = await waitForSdrs(server, account, messageId, has("dlr_received"));
    expect(records.find((r) => r.status === "delivered")!.statusDetails).toMatch(/^id:sim-/);
    expect(smsc.submits.some((s) => s.text === "Through the simulator")).toBe(false);
  });

  it("is up on the account's dashboard with its binds", async () => {
    const state = await waitUntil(
      "the SMPP connection up",
      async () => {
        const res = await call(server, "GET", `/api/admin/accounts/${account.accountId}/dashboard`, {
          headers: account.headers,
        });
        const connection = res.json.data.connections[0];
        return connection?.state === "up" ? connection : null;
      },
      15_000,
    );
    expect(state.stateDetail).toMatch(/4 of 4 binds up/);
  });
});
