import { withAdmin, adminResult } from "@/lib/api/with-admin";
import { readJson } from "@/lib/api/read-json";
import { parseInput } from "@/lib/api/parse-input";
import { actorLabel } from "@/lib/audit/audit-trail";
import { releaseNumber, updateNumber } from "@/lib/numbers/manage-numbers";
import { updateNumberInput } from "@/lib/numbers/number-schema";
import { releaseProviderNumber } from "@/lib/carriers/connections/provider-numbers";

export const dynamic = "force-dynamic";

// PATCH /api/admin/accounts/{accountId}/numbers/{number}: change {label?, ratePerSecond?}.
export const PATCH = withAdmin(async ({ req, accountId, actor, ip, params }) => {
  const input = parseInput(updateNumberInput, await readJson(req));
  const number = await updateNumber({
    accountId,
    number: String(params.number),
    ...input,
    actor: actorLabel(actor),
    ip,
  });
  return adminResult({ number: { ...number, createdAt: number.createdAt.toISOString() } }, true);
});

// DELETE /api/admin/accounts/{accountId}/numbers/{number}: release the number; messages still queued from it are
// cancelled (rejected, FromNotOwned). ?atProvider=true releases it back to its connection's provider too.
export const DELETE = withAdmin(async ({ req, accountId, actor, ip, params }) => {
  const input = { accountId, number: String(params.number), actor: actorLabel(actor), ip };
  const atProvider = new URL(req.url).searchParams.get("atProvider") === "true";
  const released = await (atProvider ? releaseProviderNumber(input) : releaseNumber(input));
  return adminResult({ ...released, released: true }, true);
});
