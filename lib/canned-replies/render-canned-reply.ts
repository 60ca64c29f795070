// A canned reply's text with its variables filled in. Pure and dependency-free: the composer (in the browser) calls
// it as the reply is inserted, so the segment counter counts the very text that is sent.

export interface CannedReplyVars {
  contactName?: string | null;
  agentName?: string | null;
  /** The account's number of the conversation, digits as stored (with or without "+"). */
  accountNumber?: string | null;
}

/** The variables a canned reply may use, as the page lists them. */
export const CANNED_REPLY_VARIABLES = [
  "contact.name",
  "contact.first_name",
  "agent.name",
  "agent.first_name",
  "account.number",
] as const;

const PLACEHOLDER = /(^|[ \t]?)\{\{\s*([A-Za-z_.]+)\s*\}\}([ \t]?)/gm;

function firstName(name: string): string {
  return name.trim().split(/\s+/)[0] ?? "";
}

function valueOf(variable: string, vars: CannedReplyVars): string | undefined {
  const contact = (vars.contactName ?? "").trim();
  const agent = (vars.agentName ?? "").trim();
  switch (variable.toLowerCase()) {
    case "contact.name":
      return contact;
    case "contact.first_name":
      return firstName(contact);
    case "agent.name":
      return agent;
    case "agent.first_name":
      return firstName(agent);
    case "account.number": {
      const number = (vars.accountNumber ?? "").trim();
      return number === "" || number.startsWith("+") ? number : `+${number}`;
    }
    default:
      return undefined;
  }
}

/**
 * Fills `{{contact.name}}`, `{{contact.first_name}}`, `{{agent.name}}`, `{{agent.first_name}}` and
 * `{{account.number}}` (spaces inside the braces allowed). An unknown variable stays as written, so the agent sees it
 * before sending. A variable with no value (a contact without a name) disappears with the space before it, so
 * "Hi {{contact.first_name}}, thanks" becomes "Hi, thanks", never "Hi , thanks" or a made-up word.
 */
export function renderCannedReply(text: string, vars: CannedReplyVars): string {
  return text.replace(
    PLACEHOLDER,
    (match: string, lead: string, variable: string, trail: string, offset: number, whole: string) => {
      const value = valueOf(variable, vars);
      if (value === undefined) return match;
      if (value !== "") return lead + value + trail;
      // Nothing to put there: one space between the neighbouring words, none before punctuation or at a line's ends.
      if (lead && trail) return lead;
      if (lead) {
        const next = whole[offset + match.length] ?? "";
        return next !== "" && !/[\s,.!?;:)]/.test(next) ? lead : "";
      }
      const atLineStart = offset === 0 || whole[offset - 1] === "\n" || whole[offset - 1] === "\r";
      return atLineStart ? "" : trail;
    },
  );
}
