import { z } from "zod";
import { withAdmin, adminResult } from "@/lib/api/with-admin";
import { readJson } from "@/lib/api/read-json";
import { parseInput } from "@/lib/api/parse-input";
import { actorLabel, recordAudit } from "@/lib/audit/audit-trail";
import { listHeldGroups, reviewHeld } from "@/lib/guard/held-messages";

export const dynamic = "force-dynamic";

const reviewInput = z
  .object({
    prefix: z
      .string({ error: "is required: the held range, such as +23276" })
      .trim()
      .regex(/^\+?\d{2,8}$/, "must be a held range such as +23276"),
    action: z.enum(["release", "cancel"], { error: 'must be "release" or "cancel"' }),
  })
  .strict();

// GET /api/admin/accounts/{accountId}/held: the messages the SMS pumping defence held, by range.
export const GET = withAdmin(async ({ accountId }) => adminResult({ held: await listHeldGroups(accountId) }));

// POST /api/admin/accounts/{accountId}/held {prefix, action: release | cancel}: reviews one range. Admins only; audited.
export const POST = withAdmin(async ({ req, accountId, actor, ip }) => {
  const input = parseInput(reviewInput, await readJson(req));
  const by = actor.kind === "user" ? `${actor.name || actor.email} in the portal` : "the API";
  const result = await reviewHeld({ accountId, prefix: input.prefix, action: input.action, by });
  await recordAudit({
    accountId,
    actor: actorLabel(actor),
    action: input.action === "release" ? "held.released" : "held.cancelled",
    target: `${result.prefix}…`,
    detail: `${result.messages} message${result.messages === 1 ? "" : "s"}`,
    ip,
  });
  return adminResult({ review: result }, true);
});
