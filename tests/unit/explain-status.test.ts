import { describe, expect, it } from "vitest";
import { explainStatus, isFinalStatus } from "../../lib/messaging/explain-status";
import { receiptText } from "../../lib/carriers/simulator/simulator-carrier";

// The sentences the portal shows at the top of a message, from the SDR details the worker, the carriers and the
// send path really write (the shapes below are theirs: see lib/delivery/record-outcomes.ts, record-receipt.ts).

const sdr = (status: string, statusDetails = "", segmentNumber?: number) => ({ status, statusDetails, segmentNumber });
const accepted = [sdr("accepted"), sdr("queued")];

describe("refused by Parley at send", () => {
  it("says the recipient opted out", () => {
    const explained = explainStatus({
      status: "rejected",
      rejectReason: "OptedOut",
      sdrs: [sdr("rejected", "OptedOut")],
    });
    expect(explained).toMatchObject({ tone: "error", code: "OptedOut" });
    expect(explained!.title).toBe("The recipient opted out (texted STOP), so Parley did not send it.");
    expect(explained!.detail).toMatch(/START/);
  });

  it("reads the reason from the SDR when the message has none (a queued message cancelled by a STOP)", () => {
    expect(explainStatus({ status: "rejected", sdrs: [...accepted, sdr("rejected", "OptedOut")] })?.code).toBe(
      "OptedOut",
    );
  });

  it.each([
    ["FromNotOwned", /sending number \(from\) does not belong to this account/],
    ["InvalidDestination", /not a valid phone number/],
    ["DuplicateDestination", /appeared earlier in the request/],
  ])("explains %s", (reason, title) => {
    const explained = explainStatus({ status: "rejected", rejectReason: reason, sdrs: [sdr("rejected", reason)] });
    expect(explained?.title).toMatch(title);
    expect(explained?.code).toBe(reason);
  });
});

describe("refused by the carrier at submit", () => {
  it("maps the simulator's permanent refusal (…0004) to words and says which destinations do that", () => {
    const explained = explainStatus({
      status: "rejected",
      sdrs: [...accepted, sdr("sending", "", 1), sdr("rejected", "0x0000000B ESME_RINVDSTADR (simulated)", 1)],
    });
    expect(explained).toMatchObject({
      tone: "error",
      title: "The carrier says the destination number is not valid. It was not sent.",
      code: "ESME_RINVDSTADR (0x0000000B)",
    });
    expect(explained!.detail).toMatch(/ending in 0004/);
  });

  it("maps an SMPP command_status by its number when the name is unknown to the package", () => {
    const explained = explainStatus({ status: "rejected", sdrs: [sdr("rejected", "0x45 unknown command_status", 1)] });
    expect(explained?.title).toBe("The carrier refused the message. It was not sent.");
    expect(explained?.code).toBe("ESME_RSUBMITFAIL (0x45)");
  });

  it("names an SMPP status it has no sentence for by its code", () => {
    const explained = explainStatus({ status: "rejected", sdrs: [sdr("rejected", "0x0c ESME_RINVMSGID", 1)] });
    expect(explained?.title).toMatch(/The carrier refused the message \(ESME_RINVMSGID 0x0c\)/);
  });

  it("says Parley gave up after temporary refusals, and why", () => {
    const throttled = explainStatus({
      status: "failed",
      sdrs: [sdr("failed", "0x58 ESME_RTHROTTLED; gave up after 8 attempts", 1)],
    });
    expect(throttled?.title).toBe(
      "Parley gave up after 8 attempts. The carrier asked Parley to slow down (too many messages too fast).",
    );
    const down = explainStatus({
      status: "failed",
      sdrs: [
        sdr(
          "failed",
          "NOT_BOUND not bound to the SMSC within 30000 ms: connection refused; gave up after 3 attempts",
          1,
        ),
      ],
    });
    expect(down?.title).toMatch(/^Parley gave up after 3 attempts\. Parley was not connected to the carrier/);
    expect(down?.detail).toBe("The last attempt: not bound to the SMSC within 30000 ms: connection refused.");
    expect(down?.code).toBe("NOT_BOUND");
  });

  it("tells of a retry to come while the message waits", () => {
    const explained = explainStatus({
      status: "queued",
      sdrs: [
        ...accepted,
        sdr("sending", "", 1),
        sdr("retry", "0x00000058 ESME_RTHROTTLED (simulated); attempt 2 at 2026-11-22T10:00:05.000Z", 1),
      ],
    });
    expect(explained).toMatchObject({
      tone: "warning",
      title: "The carrier refused the message for now; Parley will try again.",
      retryAt: "2026-11-22T10:00:05.000Z",
      code: "ESME_RTHROTTLED (0x00000058)",
    });
    expect(explained!.detail).toMatch(/ending in 0003/);
  });
});

describe("delivery receipts", () => {
  const submitted = new Date("2026-11-22T10:00:00Z");
  const done = new Date("2026-11-22T10:00:02Z");

  it("reads the simulator's undelivered receipt (…0000)", () => {
    const note = receiptText("sim-1234", "undelivered", submitted, done, "Hello");
    const explained = explainStatus({
      status: "undelivered",
      sdrs: [...accepted, sdr("message_sent", "", 1), sdr("undelivered", note, 1), sdr("dlr_received", "err:001", 1)],
    });
    expect(explained).toMatchObject({
      tone: "error",
      title: "The carrier could not deliver the message to the phone.",
      code: "stat:UNDELIV err:001",
    });
    expect(explained!.detail).toMatch(/ending in 0000/);
  });

  it("reads the simulator's failed receipt (…0001)", () => {
    const note = receiptText("sim-5678", "failed", submitted, done, "Hello");
    const explained = explainStatus({
      status: "failed",
      sdrs: [sdr("failed", note, 1), sdr("dlr_received", "err:069", 1)],
    });
    expect(explained?.code).toBe("stat:UNDELIV err:069");
    expect(explained?.detail).toMatch(/ending in 0001/);
  });

  it("reads another carrier's stat and error code", () => {
    const note = "id:7F3A sub:001 dlvrd:000 submit date:2611221000 done date:2611221002 stat:EXPIRED err:027 text:Hi";
    const explained = explainStatus({ status: "expired", sdrs: [sdr("expired", note, 1)] });
    expect(explained?.title).toMatch(/^The carrier gave up: the phone stayed unreachable/);
    expect(explained?.detail).toBe("The carrier's error code is 027.");
    const rejected = explainStatus({ status: "rejected", sdrs: [sdr("rejected", "id:9 stat:REJECTD err:000", 1)] });
    expect(rejected?.title).toBe("The carrier rejected the message.");
    expect(rejected?.detail).toBeUndefined();
    const odd = explainStatus({ status: "failed", sdrs: [sdr("failed", "id:9 stat:SPAM err:1", 1)] });
    expect(odd?.title).toBe("The carrier reported the delivery state “SPAM”.");
  });

  it("explains the worker's own expiry (no receipt in time)", () => {
    const explained = explainStatus({
      status: "expired",
      sdrs: [sdr("wait_dlr"), sdr("expired", "no delivery receipt within the validity period", 1)],
    });
    expect(explained?.title).toMatch(/No delivery receipt arrived in time/);
  });

  it("explains the worst part of a message of several parts", () => {
    const explained = explainStatus({
      status: "undelivered",
      sdrs: [
        sdr("delivered", receiptText("sim-1", "delivered", submitted, done, "a"), 1),
        sdr("undelivered", receiptText("sim-2", "undelivered", submitted, done, "b"), 2),
      ],
    });
    expect(explained?.code).toBe("stat:UNDELIV err:001");
  });
});

describe("nothing to explain", () => {
  it("is silent for delivered, sent, inbound and plain queued messages", () => {
    for (const status of ["delivered", "sent", "sending", "queued", ""])
      expect(explainStatus({ status, sdrs: [...accepted] })).toBeNull();
  });

  it("mentions the bulk window for a queued bulk message", () => {
    const explained = explainStatus({ status: "queued", sdrs: [sdr("accepted"), sdr("queued", "bulk")] });
    expect(explained).toMatchObject({ tone: "info" });
  });

  it("warns when a delivered message's status event never reached the webhook", () => {
    const explained = explainStatus({
      status: "delivered",
      sdrs: [sdr("delivered"), sdr("status_failed", "webhook not accepted after 9 attempts: HTTP 500", 1)],
    });
    expect(explained).toMatchObject({ tone: "warning", detail: "webhook not accepted after 9 attempts: HTTP 500" });
  });

  it("knows which statuses are final", () => {
    expect(["delivered", "undelivered", "failed", "expired", "rejected", ""].every(isFinalStatus)).toBe(true);
    expect(["queued", "sending", "sent"].some(isFinalStatus)).toBe(false);
  });
});

describe("sent later, cancelled, or out of time", () => {
  it("says when a scheduled message leaves and that it can be cancelled", () => {
    const explained = explainStatus({
      status: "scheduled",
      sdrs: [sdr("accepted"), sdr("scheduled", "until 2026-12-01T08:30:00.000Z")],
    });
    expect(explained).toMatchObject({
      tone: "info",
      title: "A scheduled message: it joins the queue at its time.",
      detail: "Scheduled for 2026-12-01T08:30:00.000Z. It can be cancelled until then.",
    });
  });

  it("says who cancelled a message", () => {
    const explained = explainStatus({
      status: "cancelled",
      sdrs: [sdr("accepted"), sdr("scheduled", "until x"), sdr("cancelled", "cancelled by Ana in the portal", 1)],
    });
    expect(explained).toMatchObject({
      title: "The message was cancelled before it was sent.",
      detail: "Cancelled by Ana in the portal.",
    });
  });

  it("tells a validity that ran out before sending from a receipt that never came", () => {
    const unsent = explainStatus({
      status: "expired",
      sdrs: [...accepted, sdr("expired", "validity period ended before it was sent", 1)],
    });
    expect(unsent?.title).toBe("The message's validity ran out before it could be sent, so Parley never sent it.");
    const noReceipt = explainStatus({
      status: "expired",
      sdrs: [...accepted, sdr("expired", "no delivery receipt within the validity period", 1)],
    });
    expect(noReceipt?.title).toMatch(/No delivery receipt arrived in time/);
  });
});
