import { describe, expect, it } from "vitest";
import { renderCannedReply } from "../../lib/canned-replies/render-canned-reply";

const vars = { contactName: "Maria José Ortega", agentName: "Ana Lima", accountNumber: "14155550100" };

describe("renderCannedReply", () => {
  it("fills every variable", () => {
    expect(
      renderCannedReply(
        "Hi {{contact.first_name}} ({{contact.name}}), this is {{agent.first_name}} — {{agent.name}} at {{account.number}}.",
        vars,
      ),
    ).toBe("Hi Maria (Maria José Ortega), this is Ana — Ana Lima at +14155550100.");
  });

  it("accepts spaces inside the braces and any case", () => {
    expect(renderCannedReply("Hello {{ Contact.First_Name }}!", vars)).toBe("Hello Maria!");
  });

  it("leaves an unknown variable visible", () => {
    expect(renderCannedReply("Order {{order.id}} for {{contact.first_name}}", vars)).toBe(
      "Order {{order.id}} for Maria",
    );
  });

  it("leaves an empty value out without double spaces or a space before punctuation", () => {
    const none = { contactName: null, agentName: "Ana", accountNumber: "+14155550100" };
    expect(renderCannedReply("Hi {{contact.first_name}}, thanks for writing.", none)).toBe("Hi, thanks for writing.");
    expect(renderCannedReply("Hi {{contact.first_name}} and welcome", none)).toBe("Hi and welcome");
    expect(renderCannedReply("Thanks {{contact.name}}!", none)).toBe("Thanks!");
    expect(renderCannedReply("{{contact.name}} hello", none)).toBe("hello");
    expect(renderCannedReply("Line one\n{{contact.name}} two", none)).toBe("Line one\ntwo");
    expect(renderCannedReply("Call {{account.number}}", none)).toBe("Call +14155550100");
  });

  it("keeps the rest of the text exactly as written", () => {
    expect(renderCannedReply("Two  spaces\nand a {{brace", vars)).toBe("Two  spaces\nand a {{brace");
    expect(renderCannedReply("", vars)).toBe("");
  });
});
