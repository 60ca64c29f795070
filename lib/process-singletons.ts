// The one holder of process-wide singletons (the Prisma clients, the send writer, pools, caches, the logger, the
// socket.io server…). Why not a module-level variable: one process loads most of lib/ twice. server.ts runs it
// through tsx (the fast /v3 path, the socket.io server), and Next's bundle of the route handlers and pages carries a
// copy of its own; a module's state exists once per copy. What must be one per process (a connection, a counter, a
// cache that a release through the portal must clear for /v3 at once) is therefore kept here, on globalThis, which
// both copies share. This module is a leaf: it imports nothing, so every layer (lib/db included) may use it.

const STORE = Symbol.for("parley.process-singletons");

function store(): Map<string, unknown> {
  const shared = globalThis as unknown as { [STORE]?: Map<string, unknown> };
  return (shared[STORE] ??= new Map<string, unknown>());
}

/**
 * The process's one value under `key`, made by `create()` on first use. Every copy of a module that asks for the
 * same key gets the same value: a holder object (`{ current?: X }`) when the value is replaced later.
 */
export function processSingleton<T>(key: string, create: () => T): T {
  const values = store();
  if (values.has(key)) return values.get(key) as T;
  const value = create();
  values.set(key, value);
  return value;
}

/** Forgets the value under `key`: the next processSingleton() makes a new one (tests). */
export function forgetProcessSingleton(key: string): void {
  store().delete(key);
}
