import type { ReceiptStatus } from "../carriers/carrier";

// A message's outcome from its parts' receipts: delivered only when every part was; otherwise the worst part
// decides, so that a client never reads "delivered" for a message the phone could not put together.
const SEVERITY: Record<ReceiptStatus, number> = { delivered: 0, expired: 1, undelivered: 2, failed: 3, rejected: 4 };

export function finalStatus(parts: ReceiptStatus[]): ReceiptStatus {
  return parts.reduce<ReceiptStatus>((worst, s) => (SEVERITY[s] > SEVERITY[worst] ? s : worst), "delivered");
}
