import { withAdmin, adminResult } from "@/lib/api/with-admin";
import { readJson } from "@/lib/api/read-json";
import { parseInput, queryObject } from "@/lib/api/parse-input";
import { actorLabel } from "@/lib/audit/audit-trail";
import { listNumbers, provisionNumber, toPortalNumber } from "@/lib/numbers/manage-numbers";
import { numbersPageQuery, provisionNumberInput } from "@/lib/numbers/number-schema";

export const dynamic = "force-dynamic";

// GET /api/admin/accounts/{accountId}/numbers?start=&count=: a page of the numbers, each with its queue right now.
export const GET = withAdmin(async ({ req, accountId }) => {
  const { start, count } = parseInput(numbersPageQuery, queryObject(req));
  const page = await listNumbers({ accountId, start, count });
  return adminResult({ numbers: page.numbers.map(toPortalNumber), total: page.total, start, count });
});

// POST /api/admin/accounts/{accountId}/numbers: provision {number, label?, ratePerSecond?} (idempotent).
export const POST = withAdmin(async ({ req, accountId, actor, ip }) => {
  const input = parseInput(provisionNumberInput, await readJson(req));
  const number = await provisionNumber({ accountId, ...input, actor: actorLabel(actor), ip });
  return adminResult({ number: toPortalNumber({ ...number, queued: 0 }), created: number.created }, true);
});
