// Opt keywords (CTIA's list, and the decision's): one word, any case, with surrounding spaces and punctuation
// ignored, so "Stop!", " stop. " and "STOP" are keywords. A sentence is never a keyword: "please stop texting me"
// may well be a request to opt out, but acting on free text would unsubscribe people who write "don't stop";
// it is flagged for a person to read instead.

export type OptKeywordKind = "out" | "in" | "help";

const KEYWORDS: Record<string, OptKeywordKind> = {
  STOP: "out",
  STOPALL: "out",
  UNSUBSCRIBE: "out",
  CANCEL: "out",
  END: "out",
  QUIT: "out",
  REVOKE: "out",
  OPTOUT: "out",
  START: "in",
  UNSTOP: "in",
  YES: "in",
  OPTIN: "in",
  HELP: "help",
  INFO: "help",
};

export interface KeywordMatch {
  kind: OptKeywordKind;
  /** The keyword in capitals, as the audit trail records it ("STOP" for " stop! "). */
  keyword: string;
}

// Anything that is neither a letter nor a digit at either end: spaces (any Unicode ones), punctuation, emoji.
const EDGES = /^[^\p{L}\p{N}]+|[^\p{L}\p{N}]+$/gu;

/** The keyword a whole inbound text is, or null. */
export function matchOptKeyword(text: string): KeywordMatch | null {
  const word = text.replace(EDGES, "").toUpperCase();
  const kind = KEYWORDS[word];
  return kind ? { kind, keyword: word } : null;
}

// Words that, inside a longer text, suggest the sender wants no more messages.
const OPT_OUT_WORDS = /\b(stop|stopall|unsubscribe|cancel|quit|revoke|opt[\s-]?out|remove me)\b/i;

/**
 * A text that is not a keyword but mentions stopping ("please stop texting me"): staff should read it, since the
 * FCC counts any reasonable way of saying "no more" as a revocation of consent.
 */
export function mentionsOptOut(text: string): boolean {
  return matchOptKeyword(text) === null && OPT_OUT_WORDS.test(text);
}
