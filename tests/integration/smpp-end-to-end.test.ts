import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServer, type RunningServer } from "../helpers/server";
import { call, createTestAccount, releaseFactories, type TestAccount } from "../helpers/factories";
import { has, statuses, waitForSdrs } from "../helpers/wait-for";
import { TestSmsc } from "./helpers/test-smsc";

// The whole path through a real SMPP peer: API → worker → SMPP carrier → SMSC, the SMSC's receipt back into the
// SDRs, and a phone's message from the SMSC into the listing.
let smsc: TestSmsc;
let server: RunningServer;
let account: TestAccount;

beforeAll(async () => {
  smsc = await TestSmsc.start();
  server = await startServer({
    env: {
      PARLEY_WORKER: "true",
      WORKER_POLL_MS: "50",
      ...smsc.carrierEnv,
    },
  });
  account = await createTestAccount(server, { numbers: 1 });
});

afterAll(async () => {
  await releaseFactories();
  await server?.stop();
  await smsc?.close();
});

describe("a server using the SMPP carrier", () => {
  it("submits through the SMSC and records the SMSC's delivery receipt", async () => {
    const res = await call(server, "POST", "/v3/messages", {
      headers: account.headers,
      body: {
        accountId: account.accountId,
        from: account.numbers[0],
        to: "14155550123",
        body: "Über SMPP",
        referenceId: "smpp1",
      },
    });
    const id = res.json.data.messageInfo[0].messageId;
    await waitForSdrs(server, account, id, has("wait_dlr"));
    const submit = smsc.submits.at(-1)!;
    expect(submit).toMatchObject({
      sourceAddr: account.numbers[0],
      destinationAddr: "14155550123",
      dataCoding: 0,
      registeredDelivery: 1,
    });
    const carrierId = `M${String(smsc.submits.length).padStart(6, "0")}`;
    const status = await smsc.deliver({
      source_addr: "14155550123",
      destination_addr: account.numbers[0],
      esm_class: 0x04,
      short_message: `id:${carrierId} sub:001 dlvrd:001 submit date:2611220100 done date:2611220100 stat:DELIVRD err:000 text:Über SMPP`,
    });
    expect(status).toBe(0);
    const records = await waitForSdrs(server, account, id, has("dlr_received"));
    expect(statuses(records)).toEqual([
      "accepted",
      "queued",
      "sending",
      "message_sent",
      "wait_dlr",
      "delivered",
      "dlr_received",
    ]);
    expect(records.find((r) => r.status === "delivered")!.statusDetails).toContain(`id:${carrierId}`);
    const listing = await call(server, "GET", `/v3/messages?accountId=${account.accountId}&messageId=${id}`, {
      headers: account.headers,
    });
    expect(listing.json.data.results[0].status).toBe("delivered");
  });

  it("turns an SMSC's deliver_sm from a phone into an inbound message", async () => {
    const status = await smsc.deliver({
      source_addr: "14155550199",
      destination_addr: account.numbers[0],
      short_message: "Reply from a phone",
    });
    expect(status).toBe(0);
    const deadline = Date.now() + 10_000;
    let found: Record<string, unknown> | undefined;
    while (!found && Date.now() < deadline) {
      const res = await call(server, "GET", `/v3/messages?accountId=${account.accountId}&direction=inbound`, {
        headers: account.headers,
      });
      found = res.json.data.results.find((m: { body: string }) => m.body === "Reply from a phone");
      if (!found) await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(found).toMatchObject({ direction: "inbound", from: "14155550199", to: account.numbers[0], status: "" });
  });
});
