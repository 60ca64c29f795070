import { z } from "zod";
import { pageQuery } from "../api/page-query";

// The audit trail's filter, shared by GET /api/admin/accounts/{accountId}/audit and the Activity panel (no server
// imports). `action` is a prefix: "key." finds key.created and key.revoked, "signin.failed" finds just that.

export const AUDIT_FILTERS = [
  { value: "", label: "All activity" },
  { value: "signin.", label: "Sign-ins" },
  { value: "signin.failed", label: "Failed sign-ins" },
  { value: "key.", label: "API keys" },
  { value: "user.", label: "Users" },
  { value: "number.", label: "Numbers" },
  { value: "webhook.", label: "Webhook" },
  { value: "settings.", label: "Settings" },
] as const;

export const auditQuery = pageQuery.extend({
  action: z
    .string()
    .trim()
    .max(40, "at most 40 characters")
    .regex(/^[a-z_.]*$/, "must be an action or its start, such as key. or signin.failed")
    .optional(),
});
export type AuditQuery = z.infer<typeof auditQuery>;
