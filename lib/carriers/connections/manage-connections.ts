import { randomInt } from "node:crypto";
import { ApiError } from "../../api/api-error";
import { recordAudit } from "../../audit/audit-trail";
import { db } from "../../db/client";
import { isDuplicateKeyError } from "../../messaging/idempotency";
import { openSecret, sealSecret } from "../../secrets/secret-box";
import {
  CONNECTION_KINDS,
  CONNECTION_TYPES,
  connectionNameField,
  maskSecret,
  readConnectionValues,
  type ConnectionType,
} from "./connection-kinds";
import { connectionUrls } from "./connection-urls";

// An account's carrier connections (model CarrierConnection): one service behind the portal's Carriers page (admin
// API) and the CLI's `carrier` commands. Credentials are sealed at rest (context carrier:<id>) and never leave the
// server again: views carry masked hints. Every change is written to the account's audit trail.

export interface ConnectionRow {
  id: string;
  accountId: string;
  name: string;
  type: string;
  enabled: boolean;
  settings: string;
  credentials: string;
  state: string;
  stateDetail: string;
  stateSince: Date | null;
  failures: number;
  createdAt: Date;
  updatedAt: Date;
}

/** A connection as the portal, the admin API and the CLI show it: no secret, only masked hints. */
export interface ConnectionView {
  id: string;
  name: string;
  type: ConnectionType;
  enabled: boolean;
  settings: Record<string, string | number>;
  credentials: Record<string, string>;
  inboundUrl: string;
  statusUrl: string;
  state: string;
  stateDetail: string;
  stateSince: string | null;
  numbers: number;
  createdAt: string;
}

/** A connection with its secrets, for the worker's carriers and the callbacks' checks only. */
export interface OpenConnection {
  id: string;
  accountId: string;
  name: string;
  type: ConnectionType;
  enabled: boolean;
  settings: Record<string, string | number>;
  credentials: Record<string, string>;
  updatedAt: Date;
}

interface Acting {
  actor: string;
  ip?: string;
}

const ID_LETTERS = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";

function newConnectionId(): string {
  let id = "cc_";
  for (let i = 0; i < 20; i++) id += ID_LETTERS[randomInt(ID_LETTERS.length)];
  return id;
}

const context = (id: string) => `carrier:${id}`;

export function parseType(type: unknown): ConnectionType {
  if (typeof type === "string" && (CONNECTION_TYPES as readonly string[]).includes(type)) return type as ConnectionType;
  throw new ApiError("InvalidRequest", {
    detail: `the type is one of ${CONNECTION_TYPES.join(", ")}`,
    field: "type",
  });
}

function parseName(name: unknown): string {
  const parsed = connectionNameField.safeParse(name);
  if (!parsed.success) throw new ApiError("InvalidRequest", { detail: parsed.error.issues[0]!.message, field: "name" });
  return parsed.data;
}

function fieldError(errors: Record<string, string>): ApiError | null {
  const [key, message] = Object.entries(errors)[0] ?? [];
  return key ? new ApiError("InvalidRequest", { detail: message, field: key }) : null;
}

function openCredentials(row: ConnectionRow): Record<string, string> {
  if (!row.credentials) return {};
  const plain = openSecret(row.credentials, context(row.id));
  if (plain === null)
    throw new Error(`the credentials of carrier connection ${row.id} cannot be opened with the secret key`);
  return JSON.parse(plain) as Record<string, string>;
}

export function openConnection(row: ConnectionRow): OpenConnection {
  return {
    id: row.id,
    accountId: row.accountId,
    name: row.name,
    type: row.type as ConnectionType,
    enabled: row.enabled,
    settings: JSON.parse(row.settings) as Record<string, string | number>,
    credentials: openCredentials(row),
    updatedAt: row.updatedAt,
  };
}

/**
 * A connection whose credentials may be sealed with a key this deployment no longer has: then opened without them
 * (`unreadable`), so that it can be shown with what to do, entered again, and kept from sending.
 */
export function openConnectionIfReadable(row: ConnectionRow): { open: OpenConnection; unreadable: boolean } {
  try {
    return { open: openConnection(row), unreadable: false };
  } catch {
    return { open: openConnection({ ...row, credentials: "" }), unreadable: true };
  }
}

export function viewOf(row: ConnectionRow, numbers: number): ConnectionView {
  const { open, unreadable } = openConnectionIfReadable(row);
  const credentials: Record<string, string> = {};
  for (const [key, value] of Object.entries(open.credentials)) credentials[key] = maskSecret(value);
  return {
    id: row.id,
    name: row.name,
    type: open.type,
    enabled: row.enabled,
    settings: open.settings,
    credentials,
    ...connectionUrls(row.id),
    state: unreadable ? "down" : row.enabled ? row.state : "disabled",
    stateDetail: unreadable
      ? "its credentials cannot be opened with this deployment's secret key: enter them again"
      : row.stateDetail,
    stateSince: row.stateSince?.toISOString() ?? null,
    numbers,
    createdAt: row.createdAt.toISOString(),
  };
}

async function numbersOn(ids: string[]): Promise<Map<string, number>> {
  if (ids.length === 0) return new Map();
  const rows = await db().phoneNumber.groupBy({
    by: ["carrierId"],
    where: { carrierId: { in: ids } },
    _count: { _all: true },
  });
  return new Map(rows.map((r) => [r.carrierId!, r._count._all]));
}

export async function listConnections(accountId: string): Promise<ConnectionView[]> {
  const rows = await db().carrierConnection.findMany({ where: { accountId }, orderBy: { name: "asc" } });
  const counts = await numbersOn(rows.map((r) => r.id));
  return rows.map((row) => viewOf(row, counts.get(row.id) ?? 0));
}

/** The names of an account's connections, for pickers (nothing else of them, no secret opened). */
export async function listConnectionNames(accountId: string): Promise<string[]> {
  const rows = await db().carrierConnection.findMany({
    where: { accountId },
    orderBy: { name: "asc" },
    select: { name: true },
  });
  return rows.map((r) => r.name);
}

/** An account's connection by id or by name (the CLI names them); NotFound otherwise, whoever else holds it. */
export async function findConnectionRow(accountId: string, idOrName: string): Promise<ConnectionRow> {
  const row = await db().carrierConnection.findFirst({
    where: { accountId, OR: [{ id: idOrName }, { name: idOrName }] },
  });
  if (!row)
    throw new ApiError("NotFound", { detail: `no carrier connection "${idOrName}" in this account`, field: "carrier" });
  return row;
}

export async function getConnection(accountId: string, idOrName: string): Promise<ConnectionView> {
  const row = await findConnectionRow(accountId, idOrName);
  return viewOf(row, (await numbersOn([row.id])).get(row.id) ?? 0);
}

function describe(type: string, settings: Record<string, unknown>, secrets: readonly string[]): string {
  const shown = Object.entries(settings).map(([k, v]) => `${k}=${String(v)}`);
  return [type, ...shown, ...(secrets.length > 0 ? [`secrets: ${secrets.join(", ")}`] : [])].join("; ");
}

export async function createConnection(
  input: {
    accountId: string;
    type: unknown;
    name: unknown;
    values: Record<string, unknown>;
    enabled?: boolean;
  } & Acting,
): Promise<ConnectionView> {
  const type = parseType(input.type);
  const name = parseName(input.name);
  const { values, errors } = readConnectionValues(type, input.values);
  const error = fieldError(errors);
  if (error) throw error;
  const account = await db().account.findUnique({ where: { id: input.accountId }, select: { id: true } });
  if (!account) throw new ApiError("NotFound", { detail: `no account ${input.accountId}` });
  const id = newConnectionId();
  const credentialKeys = Object.keys(values.credentials);
  try {
    const row = await db().$transaction(async (tx) => {
      const created = await tx.carrierConnection.create({
        data: {
          id,
          accountId: input.accountId,
          name,
          type,
          enabled: input.enabled ?? true,
          settings: JSON.stringify(values.settings),
          credentials: credentialKeys.length > 0 ? sealSecret(JSON.stringify(values.credentials), context(id)) : "",
        },
      });
      await recordAudit(
        {
          accountId: input.accountId,
          actor: input.actor,
          action: "carrier.added",
          target: name,
          detail: describe(type, values.settings, credentialKeys),
          ip: input.ip,
        },
        tx,
      );
      return created;
    });
    return viewOf(row, 0);
  } catch (e) {
    if (isDuplicateKeyError(e))
      throw new ApiError("InvalidRequest", {
        detail: `a carrier connection named "${name}" exists already`,
        field: "name",
      });
    throw e;
  }
}

/**
 * Changes a connection: its name, whether it is enabled, and any of its kind's fields. A secret left empty keeps its
 * saved value (secrets are write-only); a setting given as "" is cleared when it is optional.
 */
export async function updateConnection(
  input: {
    accountId: string;
    idOrName: string;
    name?: unknown;
    enabled?: unknown;
    values?: Record<string, unknown>;
  } & Acting,
): Promise<ConnectionView> {
  const row = await findConnectionRow(input.accountId, input.idOrName);
  const { open } = openConnectionIfReadable(row); // unreadable secrets are entered again here
  const name = input.name === undefined ? row.name : parseName(input.name);
  if (input.enabled !== undefined && typeof input.enabled !== "boolean")
    throw new ApiError("InvalidRequest", { detail: "enabled is true or false", field: "enabled" });
  const enabled = (input.enabled as boolean | undefined) ?? row.enabled;
  let settings = open.settings;
  let credentials = open.credentials;
  const changedKeys: string[] = [];
  if (input.values && Object.keys(input.values).length > 0) {
    const { values, errors } = readConnectionValues(open.type, input.values, {
      settings: open.settings,
      credentialKeys: Object.keys(open.credentials),
    });
    const error = fieldError(errors);
    if (error) throw error;
    settings = { ...open.settings };
    for (const field of CONNECTION_KINDS[open.type].fields) {
      if (field.secret || !(field.key in input.values)) continue;
      if (values.settings[field.key] === undefined) delete settings[field.key];
      else settings[field.key] = values.settings[field.key]!;
      changedKeys.push(field.key);
    }
    credentials = { ...open.credentials, ...values.credentials };
    changedKeys.push(...Object.keys(values.credentials));
  }
  const updated = await db()
    .$transaction(async (tx) => {
      const saved = await tx.carrierConnection.update({
        where: { id: row.id },
        data: {
          name,
          enabled,
          settings: JSON.stringify(settings),
          credentials:
            Object.keys(credentials).length > 0 ? sealSecret(JSON.stringify(credentials), context(row.id)) : "",
          ...(enabled && !row.enabled ? { state: "unknown", stateDetail: "", stateSince: null, failures: 0 } : {}),
        },
      });
      const what = [
        name !== row.name ? `renamed from "${row.name}"` : "",
        enabled !== row.enabled ? (enabled ? "enabled" : "disabled") : "",
        changedKeys.length > 0 ? `changed ${changedKeys.join(", ")}` : "",
      ].filter(Boolean);
      await recordAudit(
        {
          accountId: input.accountId,
          actor: input.actor,
          action: "carrier.updated",
          target: name,
          detail: what.join("; ") || "no change",
          ip: input.ip,
        },
        tx,
      );
      return saved;
    })
    .catch((e: unknown) => {
      if (isDuplicateKeyError(e))
        throw new ApiError("InvalidRequest", {
          detail: `a carrier connection named "${name}" exists already`,
          field: "name",
        });
      throw e;
    });
  return viewOf(updated, (await numbersOn([row.id])).get(row.id) ?? 0);
}

/** Removes a connection that no number is routed to (numbers must be moved first, so none changes route unseen). */
export async function removeConnection(
  input: { accountId: string; idOrName: string } & Acting,
): Promise<ConnectionView> {
  const row = await findConnectionRow(input.accountId, input.idOrName);
  const routed = (await numbersOn([row.id])).get(row.id) ?? 0;
  if (routed > 0)
    throw new ApiError("InvalidRequest", {
      detail: `${routed} number${routed === 1 ? " is" : "s are"} routed to "${row.name}": route ${routed === 1 ? "it" : "them"} elsewhere first`,
      field: "carrier",
    });
  const view = viewOf(row, 0);
  await db().$transaction(async (tx) => {
    await tx.carrierConnection.delete({ where: { id: row.id } });
    await recordAudit(
      {
        accountId: input.accountId,
        actor: input.actor,
        action: "carrier.removed",
        target: row.name,
        detail: row.type,
        ip: input.ip,
      },
      tx,
    );
  });
  return view;
}

/** The connection a callback names, with its secrets (null: no such connection). */
export async function loadOpenConnection(id: string): Promise<OpenConnection | null> {
  if (!/^cc_[A-Za-z0-9]{20}$/.test(id)) return null;
  const row = await db().carrierConnection.findUnique({ where: { id } });
  return row ? openConnection(row) : null;
}
