import type { ApiKeyListing, listApiKeyPage } from "@/lib/accounts/manage-accounts";

// The admin API's answers the keys screen reads (types only: nothing of the server module reaches the browser).
export type { ApiKeyListing };
export type KeyPage = Awaited<ReturnType<typeof listApiKeyPage>>;
export interface CreatedKey {
  key: ApiKeyListing;
  secret: string;
}

/** Keys a page, on the server's first render and in the browser alike. */
export const KEY_PAGE_SIZE = 20;
