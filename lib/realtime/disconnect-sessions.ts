import type { Server } from "socket.io";
import { processSingleton } from "../process-singletons";

// Every socket joins the room of the portal session it was opened with (lib/realtime/start-realtime.ts), so ending
// a session can close its live connections at once. Through the socket.io adapter (Redis or PostgreSQL) the
// disconnect reaches sockets held by the other servers of a deployment too. A process without the socket.io server
// (the CLI, a worker) cannot: there each server's periodic re-check of its sockets closes them within seconds.

const holder = processSingleton("io", (): { __parleyIo?: Server } => ({}));

export function sessionRoom(sessionId: string): string {
  return `session:${sessionId}`;
}

export function disconnectSessions(sessionIds: string[]): void {
  const io = holder.__parleyIo;
  if (!io || sessionIds.length === 0) return;
  io.in(sessionIds.map(sessionRoom)).disconnectSockets(true);
}
