import { publicUrl } from "../../env";

/**
 * The addresses a provider is given for a connection: where it posts inbound messages and status callbacks. Both are
 * absolute, from PUBLIC_URL (the address the provider reaches this deployment at); signatures that cover the URL
 * (Twilio's) are checked against these very strings.
 */
export function connectionUrls(connectionId: string): { inboundUrl: string; statusUrl: string } {
  const base = `${publicUrl()}/carriers/${connectionId}`;
  return { inboundUrl: `${base}/inbound`, statusUrl: `${base}/status` };
}
