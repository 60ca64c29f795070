import { lookup as dnsLookup, type LookupAddress } from "node:dns";
import { isIP } from "node:net";
import ipaddr from "ipaddr.js";
import { webhookUrlProblem } from "./webhook-schemas";

// The decision: webhooks never reach loopback, private, link-local (cloud metadata at 169.254.169.254 and
// fd00:ec2::254 included) or other non-public addresses unless the operator allows them (WEBHOOK_ALLOW_PRIVATE).
// A webhook URL is chosen by a customer; without this guard it is a way into the operator's own network (SSRF).
// The check runs when the URL is set and again at every delivery, on every address the name resolves to, and the
// connection goes to the address that was checked (no second resolution a rebinding DNS server could answer
// differently). Redirects are not followed at all (see post-webhook.ts).

export class WebhookUrlError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "WebhookUrlError";
  }
}

/** Why an address may not be called, or null when it is a public unicast address. */
export function refusedAddressReason(address: string): string | null {
  if (!ipaddr.isValid(address)) return `"${address}" is not an IP address`;
  let parsed = ipaddr.parse(address);
  // ::ffff:10.0.0.1 is 10.0.0.1: judge the IPv4 address it carries.
  if (parsed.kind() === "ipv6" && (parsed as ipaddr.IPv6).isIPv4MappedAddress()) {
    parsed = (parsed as ipaddr.IPv6).toIPv4Address();
  }
  const range = parsed.range();
  // Everything but plain unicast: private, loopback, linkLocal, uniqueLocal, carrierGradeNat, unspecified,
  // multicast, broadcast, reserved, and the IPv6 translation ranges (6to4, Teredo, NAT64) that can embed an
  // IPv4 address of any kind.
  return range === "unicast" ? null : `${address} is a ${range} address`;
}

/** The literal IP of a URL's host, or null for a name ("[::1]" → "::1"). */
function literalAddress(hostname: string): string | null {
  const bare = hostname.startsWith("[") && hostname.endsWith("]") ? hostname.slice(1, -1) : hostname;
  return isIP(bare) ? bare : null;
}

/** Checks the form of a webhook URL (http/https, no credentials, a host) and returns it parsed. */
export function parseWebhookUrl(value: string): URL {
  const problem = webhookUrlProblem(value);
  if (problem) throw new WebhookUrlError(problem);
  return new URL(value);
}

function resolveAll(hostname: string): Promise<LookupAddress[]> {
  return new Promise((resolve, reject) =>
    dnsLookup(hostname, { all: true, verbatim: true }, (error, addresses) =>
      error ? reject(error) : resolve(addresses),
    ),
  );
}

/** Every address the URL's host stands for must be allowed; throws WebhookUrlError naming the first that is not. */
export async function checkWebhookUrl(value: string, allowPrivate: boolean): Promise<URL> {
  const url = parseWebhookUrl(value);
  if (allowPrivate) return url;
  const literal = literalAddress(url.hostname);
  if (literal) {
    const reason = refusedAddressReason(literal);
    if (reason) throw new WebhookUrlError(`the webhook URL is refused: ${reason}`);
    return url;
  }
  let addresses: LookupAddress[];
  try {
    addresses = await resolveAll(url.hostname);
  } catch (error) {
    throw new WebhookUrlError(`the webhook host ${url.hostname} does not resolve (${(error as Error).message})`);
  }
  for (const { address } of addresses) {
    const reason = refusedAddressReason(address);
    if (reason) throw new WebhookUrlError(`the webhook URL is refused: ${url.hostname} resolves to ${reason}`);
  }
  return url;
}

type LookupCallback = (error: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;

/**
 * A `lookup` for node:http that resolves, refuses the whole name if any of its addresses is not allowed, and hands
 * the socket only the addresses it checked. Node calls it with `all: true` when it tries several addresses.
 */
export function guardedLookup(allowPrivate: boolean) {
  return (hostname: string, options: { all?: boolean; family?: number }, callback: LookupCallback): void => {
    resolveAll(hostname).then(
      (addresses) => {
        const family = options.family === 4 || options.family === 6 ? options.family : undefined;
        const usable = family ? addresses.filter((a) => a.family === family) : addresses;
        if (!allowPrivate) {
          for (const { address } of usable) {
            const reason = refusedAddressReason(address);
            if (reason) {
              const error: NodeJS.ErrnoException = new WebhookUrlError(`${hostname} resolves to ${reason}`);
              error.code = "EWEBHOOKREFUSED";
              callback(error, "");
              return;
            }
          }
        }
        if (usable.length === 0) {
          const error: NodeJS.ErrnoException = new Error(`${hostname} has no address`);
          error.code = "ENOTFOUND";
          callback(error, "");
          return;
        }
        if (options.all) callback(null, usable);
        else callback(null, usable[0]!.address, usable[0]!.family);
      },
      (error: NodeJS.ErrnoException) => callback(error, ""),
    );
  };
}

/** The literal address a URL names, checked (node:http does not call `lookup` for literal IPs). */
export function checkLiteralHost(url: URL, allowPrivate: boolean): void {
  if (allowPrivate) return;
  const literal = literalAddress(url.hostname);
  if (!literal) return;
  const reason = refusedAddressReason(literal);
  if (reason) throw new WebhookUrlError(`the webhook URL is refused: ${reason}`);
}
