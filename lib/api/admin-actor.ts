// A module of its own: the audit trail and the services record who acted without importing the admin wrapper
// (with-admin.ts), which sits above them.
/** Who acts through the admin API: a portal user, or the account's own API key (for automation). */
export type AdminActor =
  | { kind: "user"; userId: string; email: string; name: string; role: "admin" | "agent"; sessionId: string }
  | { kind: "apiKey"; apiKeyId: string };
