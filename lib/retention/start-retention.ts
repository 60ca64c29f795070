import { env } from "../env";
import { RetentionSweeper } from "./retention-sweeper";

/** The retention pass with the configured settings, started (wherever the delivery worker runs). */
export function startConfiguredRetention(): RetentionSweeper {
  const e = env();
  const sweeper = new RetentionSweeper({
    intervalMs: e.RETENTION_INTERVAL_SECONDS * 1000,
    webhookRetentionMs: e.WEBHOOK_RETENTION_DAYS * 86_400_000,
    messageRetentionMs: e.MESSAGE_RETENTION_DAYS === undefined ? null : e.MESSAGE_RETENTION_DAYS * 86_400_000,
  });
  sweeper.start();
  return sweeper;
}
