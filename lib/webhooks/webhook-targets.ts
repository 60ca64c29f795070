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
  /**
   * Reads under way, by account: when an account's entry expires, the dispatcher's deliveries in flight (up to
   * WEBHOOK_CONCURRENCY) all ask for it at once, and each would read the endpoint and its secrets again (about 50
   * reads of the secrets every TARGET_CACHE_MS under load). They share one read instead.
   */
  private readonly reading = new Map<string, Promise<WebhookTarget | null>>();

  /** The account's URL, extra header and signing secrets; null when it has no webhook URL configured. */
  of(accountId: string): Promise<WebhookTarget | null> {
    const cached = this.targets.get(accountId);
    if (cached && Date.now() - cached.at < TARGET_CACHE_MS) return Promise.resolve(cached.target);
    let read = this.reading.get(accountId);
    if (!read) {
      read = this.read(accountId).finally(() => this.reading.delete(accountId));
      this.reading.set(accountId, read);
    }
    return read;
  }

  private async read(accountId: string): Promise<WebhookTarget | null> {
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
