import { db } from "../db/client";
import { uuidv7 } from "../db/ids";
import type { AdminActor } from "../api/admin-actor";

// The account's audit trail (model AuditEvent): who signed in, and who changed keys, users, numbers, the webhook
// and settings. Written beside the change; never updated or deleted.
export type AuditAction =
  | "signin.succeeded"
  | "signin.failed"
  | "signin.locked"
  | "key.created"
  | "key.revoked"
  | "user.created"
  | "user.updated"
  | "number.provisioned"
  | "number.released"
  | "number.updated"
  | "webhook.updated"
  | "webhook.removed"
  | "webhook.secret_rotated"
  | "webhook.secret_revealed"
  | "settings.updated"
  | "twofactor.enabled"
  | "twofactor.disabled"
  | "twofactor.reset"
  | "twofactor.recovery_codes_regenerated"
  // A text an admin sent as a phone from the phone simulator (CARRIER=simulator only).
  | "simulator.inbound"
  // A state-changing request refused because a page on another origin sent it (lib/http/refuse-cross-site.ts).
  | "request.cross_site_refused"
  // An inbound media URL that was not a safe http(s) URL, dropped from its message (detail: the scheme only).
  | "media.dropped"
  // Portal sessions ended on the server (lib/auth/end-sessions.ts) and a user's own password change.
  | "signout"
  | "session.revoked"
  | "user.signed_out_everywhere"
  | "password.changed"
  // Carrier connections (lib/carriers/connections): added, changed, removed, tested; a provider callback refused
  // because its signature was missing, stale or wrong; numbers imported from or bought at a provider.
  | "carrier.added"
  | "carrier.updated"
  | "carrier.removed"
  | "carrier.tested"
  | "carrier.callback_refused"
  | "carrier.numbers_imported"
  | "carrier.number_bought"
  // The team inbox: a conversation assigned, unassigned, resolved, reopened (by staff or a new message), snoozed.
  | "conversation.assigned"
  | "conversation.unassigned"
  | "conversation.resolved"
  | "conversation.reopened"
  | "conversation.snoozed"
  // An internal note added to a conversation (target: the conversation; detail: how many staff it mentions).
  | "note.added"
  // Contacts: one saved or forgotten (target: its number), a CSV file imported (detail: what it changed).
  | "contact.updated"
  | "contact.deleted"
  | "contacts.imported"
  // A message cancelled in the portal before it left (target: the message id).
  | "message.cancelled"
  // Messages the SMS pumping defence held, reviewed on the dashboard (target: the range; detail: how many).
  | "held.released"
  | "held.cancelled"
  // Campaigns: created (detail: how many phones), paused, resumed, cancelled (target: the campaign's name).
  | "campaign.created"
  | "campaign.paused"
  | "campaign.resumed"
  | "campaign.cancelled";

export interface AuditEntry {
  accountId: string | null;
  actor: string;
  action: AuditAction;
  target?: string;
  detail?: string;
  ip?: string;
}

type AuditWriter = Pick<ReturnType<typeof db>, "auditEvent">;

export async function recordAudit(entry: AuditEntry, client: AuditWriter = db()): Promise<void> {
  await client.auditEvent.create({
    data: {
      id: uuidv7(),
      accountId: entry.accountId,
      actor: entry.actor,
      action: entry.action,
      target: entry.target ?? "",
      detail: entry.detail ?? "",
      ip: entry.ip ?? "",
      createdAt: new Date(),
    },
  });
}

/** Who made a change and from where, as a service that changes something receives it for the audit trail. */
export interface ChangedBy {
  actor: AdminActor | "cli";
  ip?: string;
}

/** How the audit trails (this one and the opt-out one) name who acted: a portal user by e-mail, a key by id, or
 * the operator's CLI. */
export function actorLabel(actor: AdminActor | "cli"): string {
  if (actor === "cli") return "cli";
  return actor.kind === "user" ? `user:${actor.email}` : `apiKey:${actor.apiKeyId}`;
}

export async function listAudit(input: { accountId: string; action?: string; start: number; count: number }) {
  const where = {
    accountId: input.accountId,
    ...(input.action ? { action: { startsWith: input.action } } : {}),
  };
  const [rows, total] = await Promise.all([
    db().auditEvent.findMany({
      where,
      orderBy: [{ createdAt: "desc" }, { id: "desc" }],
      skip: input.start,
      take: input.count,
    }),
    db().auditEvent.count({ where }),
  ]);
  return {
    total,
    events: rows.map((r) => ({
      id: r.id,
      actor: r.actor,
      action: r.action,
      target: r.target,
      detail: r.detail,
      ip: r.ip,
      createdAt: r.createdAt.toISOString(),
    })),
  };
}
