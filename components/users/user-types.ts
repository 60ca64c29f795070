import type { UserListing, listUsers } from "@/lib/accounts/manage-users";
import type { listAudit } from "@/lib/audit/audit-trail";

// The admin API's answers the users screen reads (types only: nothing of the server modules reaches the browser).
export type { UserListing };
export type UserPage = Awaited<ReturnType<typeof listUsers>>;
export interface CreatedUser {
  user: UserListing;
  password: string;
}
export type AuditPage = Awaited<ReturnType<typeof listAudit>> & { start: number; count: number };
export type AuditEvent = AuditPage["events"][number];

/** Page sizes, on the server's first render and in the browser alike. */
export const USER_PAGE_SIZE = 20;
export const AUDIT_PAGE_SIZE = 20;
