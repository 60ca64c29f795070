import { withAdmin, adminResult } from "@/lib/api/with-admin";
import { readJson } from "@/lib/api/read-json";
import { parseInput, queryObject } from "@/lib/api/parse-input";
import { pageQuery } from "@/lib/api/page-query";
import { apiKeyListing, createApiKey, listApiKeyPage } from "@/lib/accounts/manage-accounts";
import { newKeyInput } from "@/lib/accounts/key-schema";

export const dynamic = "force-dynamic";

// GET /api/admin/accounts/{accountId}/keys?start&count: the account's keys, newest first, by prefix and last four.
export const GET = withAdmin(async ({ req, accountId }) => {
  const page = parseInput(pageQuery, queryObject(req));
  return adminResult(await listApiKeyPage({ accountId, ...page }));
});

// POST /api/admin/accounts/{accountId}/keys: {name, expiresAt?}; the answer carries the secret, this once only.
export const POST = withAdmin(async ({ req, accountId, actor, ip }) => {
  const input = parseInput(newKeyInput, await readJson(req));
  const created = await createApiKey({ accountId, ...input, by: { actor, ip } });
  const listing = apiKeyListing({ ...created, revokedAt: null, lastUsedAt: null });
  return adminResult({ key: listing, secret: created.key }, true);
});
