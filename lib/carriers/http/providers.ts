import { env } from "../../env";
import type { OpenConnection } from "../connections/manage-connections";
import { connectionUrls } from "../connections/connection-urls";
import { bandwidthProvider } from "./bandwidth";
import type { Provider, ProviderContext, ProviderFactory } from "./provider";
import { telnyxProvider } from "./telnyx";
import { twilioProvider } from "./twilio";
import { vonageProvider } from "./vonage";

// The HTTP providers by connection type.
const FACTORIES: Record<string, ProviderFactory> = {
  twilio: twilioProvider,
  telnyx: telnyxProvider,
  bandwidth: bandwidthProvider,
  vonage: vonageProvider,
};

export function isHttpProvider(type: string): boolean {
  return type in FACTORIES;
}

/** The provider of an HTTP connection, with its callback URLs; `fetch` only for tests of the mappings. */
export function providerFor(connection: OpenConnection, overrides: Partial<ProviderContext> = {}): Provider {
  const factory = FACTORIES[connection.type];
  if (!factory) throw new Error(`a ${connection.type} connection has no HTTP provider`);
  return factory({
    connection,
    ...connectionUrls(connection.id),
    timeoutMs: env().PROVIDER_TIMEOUT_SECONDS * 1000,
    ...overrides,
  });
}
