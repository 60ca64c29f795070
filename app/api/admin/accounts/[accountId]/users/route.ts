import { withAdmin, adminResult } from "@/lib/api/with-admin";
import { readJson } from "@/lib/api/read-json";
import { parseInput, queryObject } from "@/lib/api/parse-input";
import { pageQuery } from "@/lib/api/page-query";
import { createUser } from "@/lib/accounts/manage-accounts";
import { listUsers, userListing } from "@/lib/accounts/manage-users";
import { newUserInput } from "@/lib/accounts/user-schema";

export const dynamic = "force-dynamic";

// GET /api/admin/accounts/{accountId}/users?start&count: the account's portal users, each with their open sessions.
export const GET = withAdmin(async ({ req, accountId, actor }) => {
  const page = parseInput(pageQuery, queryObject(req));
  const currentSessionId = actor.kind === "user" ? actor.sessionId : undefined;
  return adminResult(await listUsers({ accountId, ...page, currentSessionId }));
});

// POST /api/admin/accounts/{accountId}/users: {email, name?, role}; the answer carries the generated initial
// password, this once only.
export const POST = withAdmin(async ({ req, accountId, actor, ip }) => {
  const input = parseInput(newUserInput, await readJson(req));
  const { generatedPassword, ...created } = await createUser({ accountId, ...input, by: { actor, ip } });
  const user = userListing({ ...created, disabledAt: null, lastSignInAt: null, createdAt: new Date() });
  return adminResult({ user, password: generatedPassword }, true);
});
