import { describe, expect, it } from "vitest";
import { DEFAULT_FOOTER, FOOTER_INTERVAL_MS, footerDue, withFooter } from "../../lib/opt/append-footer";
import { optStatusOf } from "../../lib/opt/read-opt-states";
import { defaultOptTexts } from "../../lib/opt/opt-settings";
import { csvField } from "../../lib/opt/manage-opt";

const now = new Date("2026-11-22T12:00:00Z");

describe("opt footers", () => {
  it("are due for a destination that never had one, and again once 30 days have passed", () => {
    expect(footerDue(null, now)).toBe(true);
    expect(footerDue(undefined, now)).toBe(true);
    expect(footerDue(new Date(now.getTime() - 1000), now)).toBe(false);
    expect(footerDue(new Date(now.getTime() - FOOTER_INTERVAL_MS + 1), now)).toBe(false);
    expect(footerDue(new Date(now.getTime() - FOOTER_INTERVAL_MS), now)).toBe(true);
    expect(FOOTER_INTERVAL_MS).toBe(30 * 24 * 3600 * 1000);
  });

  it("go on a line of their own, or alone when there is no text", () => {
    expect(withFooter("Hello", DEFAULT_FOOTER)).toBe("Hello\nReply STOP to opt out");
    expect(withFooter("", DEFAULT_FOOTER)).toBe("Reply STOP to opt out");
  });
});

describe("optStatus", () => {
  it('is "" without optLogic, else in, out or notIn', () => {
    expect(optStatusOf(false, { status: "out", lastFooterAt: null })).toBe("");
    expect(optStatusOf(true, undefined)).toBe("notIn");
    expect(optStatusOf(true, { status: "", lastFooterAt: now })).toBe("notIn");
    expect(optStatusOf(true, { status: "in", lastFooterAt: null })).toBe("in");
    expect(optStatusOf(true, { status: "out", lastFooterAt: null })).toBe("out");
  });
});

describe("default replies", () => {
  it("name the account and say how to undo", () => {
    const texts = defaultOptTexts("Acme");
    expect(texts.stopReply).toBe(
      "Acme: you are unsubscribed and will receive no more messages. Reply START to resubscribe.",
    );
    expect(texts.startReply).toMatch(/^Acme: .*STOP/);
    expect(texts.helpReply).toMatch(/^Acme: .*STOP.*START/);
    expect(texts.footer).toBe("Reply STOP to opt out");
  });
});

describe("the audit trail's CSV fields", () => {
  it("quote commas, quotes and line breaks, and never start with a formula character", () => {
    expect(csvField("asked by phone")).toBe("asked by phone");
    expect(csvField('said "stop", twice')).toBe('"said ""stop"", twice"');
    expect(csvField("line\nbreak")).toBe('"line\nbreak"');
    expect(csvField("=HYPERLINK(1)")).toBe("'=HYPERLINK(1)");
    expect(csvField("+1 555")).toBe("'+1 555");
  });
});
