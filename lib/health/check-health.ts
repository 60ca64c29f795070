import { dbProvider } from "../db/client";
import { pingDatabase } from "./health-queries";

export interface Health {
  status: "ok" | "degraded";
  database: { provider: string; ok: boolean; latencyMs: number };
  uptimeSeconds: number;
}

/** Liveness and readiness: the process answers and the database does. */
export async function checkHealth(): Promise<Health> {
  const started = performance.now();
  let ok = true;
  try {
    await pingDatabase();
  } catch {
    ok = false;
  }
  return {
    status: ok ? "ok" : "degraded",
    database: { provider: dbProvider(), ok, latencyMs: Math.round((performance.now() - started) * 10) / 10 },
    uptimeSeconds: Math.round(process.uptime()),
  };
}
