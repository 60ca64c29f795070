import { withAdmin, adminResult } from "@/lib/api/with-admin";
import { readJson } from "@/lib/api/read-json";
import { parseInput } from "@/lib/api/parse-input";
import { updateUser } from "@/lib/accounts/manage-users";
import { userChangeInput } from "@/lib/accounts/user-schema";

export const dynamic = "force-dynamic";

// PATCH /api/admin/accounts/{accountId}/users/{userId}: {role?, disabled?, name?}; counts from the user's next request.
export const PATCH = withAdmin(async ({ req, accountId, actor, ip, params }) => {
  const changes = parseInput(userChangeInput, await readJson(req));
  const user = await updateUser({ accountId, userId: String(params.userId), changes, by: { actor, ip } });
  return adminResult({ user }, true);
});
