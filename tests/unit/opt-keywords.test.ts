import { describe, expect, it } from "vitest";
import { matchOptKeyword, mentionsOptOut } from "../../lib/opt/match-keyword";

describe("opt keywords", () => {
  it.each([
    ["STOP", "out", "STOP"],
    ["Stop!", "out", "STOP"],
    [" stop. ", "out", "STOP"],
    ["\tstop\n", "out", "STOP"],
    ["stopall", "out", "STOPALL"],
    ["Unsubscribe", "out", "UNSUBSCRIBE"],
    ["cancel", "out", "CANCEL"],
    ["END", "out", "END"],
    ["quit!!", "out", "QUIT"],
    ["revoke", "out", "REVOKE"],
    ["OptOut", "out", "OPTOUT"],
    ["start", "in", "START"],
    ["Unstop", "in", "UNSTOP"],
    ["yes.", "in", "YES"],
    ["optin", "in", "OPTIN"],
    ["help?", "help", "HELP"],
    ["Info", "help", "INFO"],
    ["¡STOP! 🛑", "out", "STOP"],
  ])("%j is the %s keyword %s", (text, kind, keyword) => {
    expect(matchOptKeyword(text)).toEqual({ kind, keyword });
  });

  it.each([
    "please stop texting me",
    "stop stop",
    "S T O P",
    "stopped",
    "STOP2",
    "",
    "   ",
    "!!!",
    "opt-out",
    "yes please",
  ])("%j is not a keyword", (text) => {
    expect(matchOptKeyword(text)).toBeNull();
  });

  it("flags a sentence that asks to stop, but not a keyword or an unrelated text", () => {
    expect(mentionsOptOut("please stop texting me")).toBe(true);
    expect(mentionsOptOut("How do I unsubscribe from this?")).toBe(true);
    expect(mentionsOptOut("opt-out")).toBe(true);
    expect(mentionsOptOut("Remove me from your list")).toBe(true);
    expect(mentionsOptOut("STOP")).toBe(false);
    expect(mentionsOptOut("See you at the bus stopover")).toBe(false);
    expect(mentionsOptOut("Thanks, see you tomorrow")).toBe(false);
  });
});
