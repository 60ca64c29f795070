import { ApiError } from "../../api/api-error";
import { recordAudit } from "../../audit/audit-trail";
import { isHttpProvider, providerFor } from "../http/providers";
import { ProviderError } from "../http/provider";
import { findConnectionRow, openConnection, viewOf } from "./manage-connections";

/** A provider's failure as the admin API and the CLI answer it: the provider's own words. */
export function providerFailure(error: unknown): never {
  if (error instanceof ProviderError || (error instanceof Error && !(error instanceof ApiError)))
    throw new ApiError("ProviderFailure", { detail: error.message });
  throw error;
}

/**
 * "Test": asks the provider's account or balance endpoint with the saved credentials and says what it answered, in
 * words. An SMPP connection is tested by the worker's binds: its last state is said. Audited either way.
 */
export async function testConnection(input: {
  accountId: string;
  idOrName: string;
  actor: string;
  ip?: string;
}): Promise<{ ok: boolean; words: string }> {
  const row = await findConnectionRow(input.accountId, input.idOrName);
  const connection = openConnection(row);
  let result: { ok: boolean; words: string };
  if (isHttpProvider(connection.type)) {
    try {
      result = await providerFor(connection).check();
    } catch (error) {
      result = { ok: false, words: (error as Error).message };
    }
  } else if (connection.type === "simulator") {
    result = {
      ok: true,
      words: "The simulator is built in: it is always available (no real phone receives anything).",
    };
  } else {
    const view = viewOf(row, 0);
    result = {
      ok: view.state === "up",
      words:
        view.state === "unknown"
          ? "The worker binds an SMPP connection when one of its numbers first sends: route a number to it, then look again."
          : `The worker's binds are ${view.state}${view.stateDetail ? `: ${view.stateDetail}` : ""}.`,
    };
  }
  await recordAudit({
    accountId: input.accountId,
    actor: input.actor,
    action: "carrier.tested",
    target: row.name,
    detail: `${result.ok ? "ok" : "failed"}: ${result.words}`.slice(0, 500),
    ip: input.ip,
  });
  return result;
}
