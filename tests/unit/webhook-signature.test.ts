import { randomBytes } from "node:crypto";
import { Webhook } from "standardwebhooks";
import { describe, expect, it } from "vitest";
import { signatureHeaders } from "@/lib/webhooks/delivery-headers";

const secret = () => `whsec_${randomBytes(32).toString("base64")}`;

describe("webhook signatures", () => {
  it("are what the Standard Webhooks library signs, for any secret and payload", () => {
    const at = new Date("2026-11-28T06:00:00.500Z");
    for (const payload of ['{"a":1}', "", "Émile 📦 a \u2028 line", JSON.stringify({ body: "x".repeat(5000) })]) {
      const key = secret();
      const headers = signatureHeaders("evt_1", payload, [key], at);
      expect(headers["webhook-signature"]).toBe(new Webhook(key).sign("evt_1", at, payload));
      expect(headers["webhook-timestamp"]).toBe("1795845600");
    }
  });

  it("carry one signature per secret during a rotation, each verified by a receiver holding either", () => {
    const [older, newer] = [secret(), secret()];
    const payload = JSON.stringify({ type: "message.finalized", data: { id: "m1" } });
    const headers = signatureHeaders("evt_2", payload, [older, newer], new Date());
    expect(headers["webhook-signature"]!.split(" ")).toHaveLength(2);
    expect(new Webhook(older).verify(payload, headers)).toEqual(JSON.parse(payload));
    expect(new Webhook(newer).verify(payload, headers)).toEqual(JSON.parse(payload));
    expect(() => new Webhook(secret()).verify(payload, headers)).toThrow("No matching signature");
    expect(() => new Webhook(older).verify(payload.replace("m1", "m2"), headers)).toThrow("No matching signature");
  });
});
