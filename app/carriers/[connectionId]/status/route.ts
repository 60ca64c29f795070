import { handleCarrierCallback } from "@/lib/carriers/http/handle-callback";

export const dynamic = "force-dynamic";

// POST /carriers/{connectionId}/status: a provider's status callbacks (docs/CARRIERS.md), checked by its signature.
export async function POST(req: Request, ctx: { params: Promise<{ connectionId: string }> }): Promise<Response> {
  return handleCarrierCallback(req, (await ctx.params).connectionId, "status");
}
