import { checkHealth } from "@/lib/health/check-health";

export const dynamic = "force-dynamic";

// GET /api/health: 200 when the server and its database answer, 503 otherwise (for load balancers and probes).
export async function GET(): Promise<Response> {
  const health = await checkHealth();
  return Response.json(health, {
    status: health.status === "ok" ? 200 : 503,
    headers: { "cache-control": "no-store" },
  });
}
