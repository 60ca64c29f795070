// Every React Query key of the portal comes from here, so a mutation can invalidate exactly the family it changes
// (keys.numbers.all after provisioning a number, say) and nothing else.
import type { Query } from "./api-client";

export const keys = {
  dashboard: { all: ["dashboard"] as const },
  messages: {
    all: ["messages"] as const,
    list: (filters: Query) => ["messages", "list", filters] as const,
    detail: (messageId: string) => ["messages", "detail", messageId] as const,
  },
  numbers: { all: ["numbers"] as const, list: (query: Query) => ["numbers", "list", query] as const },
  apiKeys: { all: ["apiKeys"] as const, list: (query: Query) => ["apiKeys", "list", query] as const },
  webhook: {
    all: ["webhook"] as const,
    settings: ["webhook", "settings"] as const,
    health: ["webhook", "health"] as const,
    attempts: (filters: Query) => ["webhook", "attempts", filters] as const,
    events: (filters: Query) => ["webhook", "events", filters] as const,
  },
  opt: {
    all: ["opt"] as const,
    events: (filters: Query) => ["opt", "events", filters] as const,
    settings: ["opt", "settings"] as const,
    numbers: (filters: Query) => ["opt", "numbers", filters] as const,
  },
  users: { all: ["users"] as const, list: (query: Query) => ["users", "list", query] as const },
  audit: { all: ["audit"] as const, list: (query: Query) => ["audit", "list", query] as const },
  settings: { all: ["settings"] as const },
  profile: { all: ["profile"] as const, sessions: ["profile", "sessions"] as const },
  conversations: {
    all: ["conversations"] as const,
    lists: ["conversations", "list"] as const,
    list: (filters: Query) => ["conversations", "list", filters] as const,
    thread: (conversationId: string) => ["conversations", "thread", conversationId] as const,
    search: (q: string) => ["conversations", "search", q] as const,
  },
  simulator: { all: ["simulator"] as const, phone: (query: Query) => ["simulator", "phone", query] as const },
};
