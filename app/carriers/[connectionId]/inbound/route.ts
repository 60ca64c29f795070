import { handleCarrierCallback } from "@/lib/carriers/http/handle-callback";

export const dynamic = "force-dynamic";

// POST /carriers/{connectionId}/inbound: a provider's inbound messages (docs/CARRIERS.md), checked by its signature.
export async function POST(req: Request, ctx: { params: Promise<{ connectionId: string }> }): Promise<Response> {
  return handleCarrierCallback(req, (await ctx.params).connectionId, "inbound");
}
