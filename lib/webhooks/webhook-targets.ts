import { db } from "../db/client";
import { readSigningSecrets } from "./manage-webhook";

// Where an account's events go, read at most every TARGET_CACHE_MS per dispatcher: a busy dispatcher posts many
// events of one account a second, and a changed URL or secret is picked up within that time.

export interface WebhookTarget {
  url: string;
  /** Tried at once when an attempt at `url` fails. */
  failoverUrl: string | null;
  headerName: string | null;
  headerValue: string | null;
  secrets: string[];
  /** Every signing secret in use is sealed under a key this process does not have: nothing can be signed. */
  unsigned: boolean;
}

const TARGET_CACHE_MS = 2000;

export class WebhookTargets {
  private readonly targets = new Map<string, { at: number; target: WebhookTarget | null }>();

  /** The account's URL, extra header and signing secrets; null when it has no webhook URL configured. */
  async of(accountId: string): Promise<WebhookTarget | null> {
    const cached = this.targets.get(accountId);
    if (cached && Date.now() - cached.at < TARGET_CACHE_MS) return cached.target;
    const endpoint = await db().webhookEndpoint.findUnique({ where: { accountId } });
    const signing = endpoint ? await readSigningSecrets(accountId) : null;
    const target =
      endpoint && signing
        ? {
            url: endpoint.url,
            failoverUrl: endpoint.failoverUrl,
            headerName: endpoint.headerName,
            headerValue: endpoint.headerValue,
            secrets: signing.secrets.map((s) => s.secret),
            unsigned: signing.unsigned,
          }
        : null;
    this.targets.set(accountId, { at: Date.now(), target });
    return target;
  }
}
