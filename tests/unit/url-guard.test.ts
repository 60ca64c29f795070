import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { checkWebhookUrl, refusedAddressReason } from "../../lib/webhooks/guard-webhook-url";
import { parseRetryAfter, postWebhook } from "../../lib/webhooks/post-webhook";
import { formatStatusMsg } from "../../lib/webhooks/build-payloads";
import { startWebhookReceiver, type WebhookReceiver } from "../helpers/webhook-receiver";

// The SSRF guard: a webhook URL is the customer's choice, so without WEBHOOK_ALLOW_PRIVATE nothing but public
// unicast addresses may be called, whether named literally, reached through DNS, or pointed to by a redirect.

describe("addresses", () => {
  it.each([
    ["127.0.0.1", "loopback"],
    ["127.8.9.10", "loopback"],
    ["::1", "loopback"],
    ["10.1.2.3", "private"],
    ["172.16.0.1", "private"],
    ["192.168.1.1", "private"],
    ["169.254.169.254", "linkLocal"], // cloud metadata
    ["fe80::1", "linkLocal"],
    ["fd00:ec2::254", "uniqueLocal"], // AWS metadata over IPv6
    ["fc00::1", "uniqueLocal"],
    ["100.64.0.1", "carrierGradeNat"],
    ["0.0.0.0", "unspecified"],
    ["::", "unspecified"],
    ["224.0.0.1", "multicast"],
    ["255.255.255.255", "broadcast"],
    ["::ffff:127.0.0.1", "loopback"], // IPv4-mapped IPv6 is judged as the IPv4 address it carries
    ["::ffff:169.254.169.254", "linkLocal"],
    ["64:ff9b::a00:1", "rfc6052"], // NAT64 of 10.0.0.1
    ["2002:7f00:1::", "6to4"],
  ])("%s is refused (%s)", (address, range) => {
    expect(refusedAddressReason(address)).toBe(`${address} is a ${range} address`);
  });

  it.each(["93.184.216.34", "8.8.8.8", "2606:4700:4700::1111", "::ffff:8.8.8.8"])("%s is allowed", (address) => {
    expect(refusedAddressReason(address)).toBeNull();
  });
});

describe("URLs when they are set", () => {
  it.each([
    ["http://127.0.0.1:8080/hook", /127\.0\.0\.1 is a loopback address/],
    ["http://[::1]/hook", /::1 is a loopback address/],
    ["http://[::ffff:7f00:1]/hook", /loopback/],
    ["http://169.254.169.254/latest/meta-data/", /linkLocal/],
    ["https://10.0.0.5/hook", /private/],
    [
      "http://localhost:3000/hook",
      /localhost resolves to 127\.0\.0\.1 is a loopback address|localhost resolves to ::1/,
    ],
    ["http://2130706433/hook", /loopback/], // 127.0.0.1 written as one number: the URL parser normalises it
    ["http://0x7f.1/hook", /loopback/],
    ["ftp://example.com/x", /http or https/],
    ["http://user:secret@example.com/x", /credentials/],
    ["javascript:alert(1)", /http or https/],
  ])("%s is refused", async (url, message) => {
    await expect(checkWebhookUrl(url, false)).rejects.toThrow(message);
  });

  it("public literal addresses pass without DNS, and private ones pass when the operator allows them", async () => {
    await expect(checkWebhookUrl("https://93.184.216.34/hook", false)).resolves.toBeInstanceOf(URL);
    await expect(checkWebhookUrl("http://127.0.0.1:8080/hook", true)).resolves.toBeInstanceOf(URL);
  });
});

describe("at delivery", () => {
  let receiver: WebhookReceiver;
  let elsewhere: WebhookReceiver;
  beforeAll(async () => {
    receiver = await startWebhookReceiver();
    elsewhere = await startWebhookReceiver();
  });
  afterAll(async () => {
    await receiver.close();
    await elsewhere.close();
  });

  const post = (url: string, allowPrivate: boolean) =>
    postWebhook({ url, headers: {}, body: "{}", timeoutMs: 2000, allowPrivate });

  it("a loopback receiver is never contacted, by address or by name, unless allowed", async () => {
    const byAddress = await post(receiver.url, false);
    expect(byAddress).toMatchObject({ httpStatus: null, refused: true, error: expect.stringMatching(/loopback/) });
    const byName = await post(receiver.url.replace("127.0.0.1", "localhost"), false);
    expect(byName).toMatchObject({
      httpStatus: null,
      refused: true,
      error: expect.stringMatching(/localhost resolves to/),
    });
    expect(receiver.requests).toHaveLength(0);
    const allowed = await post(receiver.url, true);
    expect(allowed).toMatchObject({ httpStatus: 200, error: null });
    expect(receiver.requests).toHaveLength(1);
  });

  it("redirects are not followed (a 3xx is a failed attempt), so one cannot lead to another address", async () => {
    receiver.respond = () => ({ status: 302, headers: { location: elsewhere.url } });
    const result = await post(receiver.url, true);
    expect(result).toMatchObject({ httpStatus: 302, error: expect.stringMatching(/redirects are not followed/) });
    expect(elsewhere.requests).toHaveLength(0);
  });

  it("a connection header saved as the customer header is left out; the others go with the POST", async () => {
    receiver.respond = () => ({ status: 200 });
    const before = receiver.requests.length;
    const result = await postWebhook({
      url: receiver.url,
      headers: { Expect: "100-continue", "Keep-Alive": "timeout=1", "X-Token": "t0k" },
      body: '{"a":1}',
      timeoutMs: 5000,
      allowPrivate: true,
    });
    expect(result).toMatchObject({ httpStatus: 200, error: null });
    const [request] = receiver.requests.slice(before);
    expect(request!.headers).toMatchObject({ "x-token": "t0k", "content-type": "application/json" });
    expect(request!.headers.expect).toBeUndefined();
    expect(request!.body).toBe('{"a":1}');
  });

  it("the timeout ends an attempt that gets no answer", async () => {
    receiver.respond = () => ({ hang: true });
    const result = await postWebhook({
      url: receiver.url,
      headers: {},
      body: "{}",
      timeoutMs: 300,
      allowPrivate: true,
    });
    expect(result).toMatchObject({ httpStatus: null, error: "no answer within 0.3 s" });
  });
});

describe("Retry-After", () => {
  it("reads seconds and HTTP dates", () => {
    expect(parseRetryAfter("120", 1_000)).toBe(121_000);
    expect(parseRetryAfter("Sun, 22 Nov 2026 04:00:00 GMT", 0)).toBe(Date.parse("2026-11-22T04:00:00Z"));
    expect(parseRetryAfter("soon", 0)).toBeNull();
    expect(parseRetryAfter(undefined, 0)).toBeNull();
  });
});

describe("statusMsg", () => {
  it("is the carrier's delivery note, without the echoed message text, followed by the carrier code", () => {
    expect(
      formatStatusMsg(
        "delivered",
        "id:abc sub:001 dlvrd:001 submit date:2611220300 done date:2611220301 stat:DELIVRD err:000 text:Your code is 1234",
        "000",
      ),
    ).toBe("id:abc sub:001 dlvrd:001 submit date:2611220300 done date:2611220301 stat:DELIVRD err:000");
    // An SMSC that reports the code only in a TLV: the code the carrier module read is used.
    expect(formatStatusMsg("undelivered", "id:9 stat:UNDELIV", "034")).toBe("id:9 stat:UNDELIV err:034");
    expect(formatStatusMsg("rejected", "ESME_RINVDSTADR", "0x0000000B")).toBe(
      "stat:REJECTD ESME_RINVDSTADR err:0x0000000B",
    );
  });
});
