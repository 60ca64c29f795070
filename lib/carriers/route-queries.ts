import { db } from "../db/client";
import { openConnectionIfReadable, type OpenConnection } from "./connections/manage-connections";

/** The numbers routed to a connection (number → connection id), and those connections with their secrets. */
export async function loadRoutes(): Promise<{ routes: Map<string, string>; connections: Map<string, OpenConnection> }> {
  const client = db();
  const [numbers, rows] = await Promise.all([
    client.phoneNumber.findMany({ where: { carrierId: { not: null } }, select: { number: true, carrierId: true } }),
    client.carrierConnection.findMany({ where: { numbers: { some: {} } } }),
  ]);
  const connections = new Map<string, OpenConnection>();
  for (const row of rows) {
    // Credentials that cannot be opened (another secret key): the connection's numbers wait, as if disabled.
    const { open, unreadable } = openConnectionIfReadable(row);
    connections.set(row.id, unreadable ? { ...open, enabled: false } : open);
  }
  return { routes: new Map(numbers.map((n) => [n.number, n.carrierId!])), connections };
}

/**
 * A stamp that changes whenever a route or a connection changes: a connection is touched (updatedAt) when a number
 * is routed to it or away from it (lib/numbers/manage-numbers.ts), and added or removed connections change the count.
 */
export async function routesStamp(): Promise<string> {
  const found = await db().carrierConnection.aggregate({ _max: { updatedAt: true }, _count: { _all: true } });
  return `${found._count._all}|${found._max.updatedAt?.getTime() ?? 0}`;
}

export interface ConnectionHealth {
  id: string;
  state: "up" | "down" | "connecting";
  detail: string;
  since: Date;
}

/** Writes the connections' health as the worker sees it (the dashboard and /metrics read it). */
export async function saveConnectionStates(states: ConnectionHealth[]): Promise<void> {
  const client = db();
  await Promise.all(
    states.map((h) =>
      client.carrierConnection.updateMany({
        where: { id: h.id },
        data: { state: h.state, stateDetail: h.detail.slice(0, 500), stateSince: h.since },
      }),
    ),
  );
}
