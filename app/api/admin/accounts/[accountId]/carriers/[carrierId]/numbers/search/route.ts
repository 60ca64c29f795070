import { withAdmin, adminResult } from "@/lib/api/with-admin";
import { searchProviderNumbers } from "@/lib/carriers/connections/provider-numbers";

export const dynamic = "force-dynamic";

// GET …/carriers/{carrierId}/numbers/search?country=US&areaCode=212: numbers the provider offers.
export const GET = withAdmin(async ({ req, accountId, params }) => {
  const query = new URL(req.url).searchParams;
  const numbers = await searchProviderNumbers({
    accountId,
    idOrName: String(params.carrierId),
    country: query.get("country") ?? "",
    areaCode: query.get("areaCode") || undefined,
  });
  return adminResult({ numbers });
});
