// Footers (the seed's concept 5, the decision's 30 days): with optLogic, the first message from an account to a
// destination carries the account's footer, and so does the first one after 30 days without one, so a person
// who forgot how to stop the messages is told again.

export const FOOTER_INTERVAL_MS = 30 * 24 * 60 * 60 * 1000;

export const DEFAULT_FOOTER = "Reply STOP to opt out";

/** Whether a message sent at `now` carries the footer, given when the last one went (null: never). */
export function footerDue(lastFooterAt: Date | null | undefined, now: Date): boolean {
  return !lastFooterAt || now.getTime() - lastFooterAt.getTime() >= FOOTER_INTERVAL_MS;
}

/** The text as sent: the footer on a line of its own, or alone when there is no text (an MMS with media only). */
export function withFooter(body: string, footer: string): string {
  return body === "" ? footer : `${body}\n${footer}`;
}
