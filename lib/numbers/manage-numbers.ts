import { ApiError } from "../api/api-error";
import { parseInput } from "../api/parse-input";
import { recordAudit } from "../audit/audit-trail";
import { db } from "../db/client";
import type { Prisma } from "../db/generated/sqlite/client";
import { uuidv4 } from "../db/ids";
import { isDuplicateKeyError } from "../messaging/idempotency";
import { tnDigits, validTn, withPlus } from "../messaging/phone-number";
import { QUEUED_STATUSES, WAITING_STATUSES } from "../messaging/message-status";
import { forgetNumberOwner } from "../messaging/send-message";
import { recordTransitionsInTx, sdrRow } from "../messaging/record-transitions";
import { provisionNumberInput, updateNumberInput, type PortalNumber } from "./number-schema";

// An account's telephone numbers: one service behind POST/GET/DELETE /v3/numbers, the portal's Numbers page (admin
// API) and the CLI's `number` commands. Every change is written to the account's audit trail in its transaction.

export const numberSelect = {
  number: true,
  label: true,
  ratePerSecond: true,
  createdAt: true,
  carrierId: true,
  carrier: { select: { name: true } },
} satisfies Prisma.PhoneNumberSelect;

export interface NumberRow {
  /** E.164 digits without '+', as listings show them. */
  number: string;
  label: string;
  ratePerSecond: number;
  createdAt: Date;
  /** The carrier connection's name; null: the deployment's default connection. */
  carrier: string | null;
}

/**
 * Marks the connections a number was routed to or from as changed: the delivery workers notice it at their next
 * check (lib/carriers/routed-carrier.ts) and send the number's next part through its new route.
 */
async function touchConnections(tx: Prisma.TransactionClient, ids: (string | null)[]): Promise<void> {
  const touched = ids.filter((id): id is string => id !== null);
  if (touched.length > 0)
    await tx.carrierConnection.updateMany({ where: { id: { in: touched } }, data: { updatedAt: new Date() } });
}

type SelectedNumber = Omit<NumberRow, "carrier"> & { carrierId: string | null; carrier: { name: string } | null };

/**
 * The connection a number is to be routed to: undefined (unchanged), null (the default connection), or the id of
 * one of the account's connections named by name or id.
 */
export async function resolveCarrier(
  accountId: string,
  carrier: string | null | undefined,
): Promise<string | null | undefined> {
  if (carrier === undefined) return undefined;
  if (carrier === null || carrier === "") return null;
  const row = await db().carrierConnection.findFirst({
    where: { accountId, OR: [{ id: carrier }, { name: carrier }] },
    select: { id: true },
  });
  if (!row)
    throw new ApiError("InvalidRequest", {
      detail: `no carrier connection "${carrier}" in this account`,
      field: "carrier",
    });
  return row.id;
}

export interface ListedNumber extends NumberRow {
  /** Outbound messages from the number waiting to leave (queued, or being handed to the carrier) right now. */
  queued: number;
}

/** Who acts, for the audit trail: actorLabel() of a portal user or key, "cli", or "system" (the demo set-up). */
interface Acting {
  actor: string;
  ip?: string;
}

const WAITING = [...QUEUED_STATUSES];

async function requireAccount(accountId: string): Promise<void> {
  const account = await db().account.findUnique({ where: { id: accountId }, select: { id: true } });
  if (!account) throw new ApiError("NotFound", { detail: `no account ${accountId}` });
}

/**
 * The digits of a number named to update or release. Only its form is checked: a held number was valid when it was
 * provisioned, and stays releasable should a later numbering plan say otherwise.
 */
function namedDigits(number: string): string {
  const digits = tnDigits(number);
  if (digits === null) {
    throw new ApiError("InvalidRequest", {
      detail: `"${number}" is not a telephone number: give the country code and digits, such as +14155550100.`,
      field: "number",
    });
  }
  return digits;
}

// The same answer whether the number is held by another account or by nobody: a caller never learns which.
function notHeld(digits: string): ApiError {
  return new ApiError("NotFound", {
    detail: `${withPlus(digits)} is not provisioned to this account`,
    field: "number",
  });
}

// A number held elsewhere is refused without naming the account that holds it.
function heldElsewhere(digits: string): ApiError {
  return new ApiError("InvalidRequest", {
    detail: `${withPlus(digits)} is provisioned to another account and cannot be provisioned to this one`,
    field: "number",
  });
}

/** A listed number as the portal and the admin API show it. */
export function toPortalNumber(row: ListedNumber): PortalNumber {
  return {
    number: row.number,
    label: row.label,
    ratePerSecond: row.ratePerSecond,
    queued: row.queued,
    carrier: row.carrier,
    createdAt: row.createdAt.toISOString(),
  };
}

export function rowOf(row: SelectedNumber): NumberRow {
  return {
    number: row.number,
    label: row.label,
    ratePerSecond: row.ratePerSecond,
    createdAt: row.createdAt,
    carrier: row.carrier?.name ?? null,
  };
}

/**
 * One page of the account's numbers in number order, with each one's queue right now, and the total.
 * Without `count`, every number (the CLI's listing).
 */
export async function listNumbers(input: {
  accountId: string;
  start?: number;
  count?: number;
}): Promise<{ total: number; numbers: ListedNumber[] }> {
  const { accountId } = input;
  await requireAccount(accountId); // a mistyped id says so instead of listing nothing
  const client = db();
  const [total, rows] = await Promise.all([
    client.phoneNumber.count({ where: { accountId } }),
    client.phoneNumber.findMany({
      where: { accountId },
      orderBy: { number: "asc" },
      skip: input.start ?? 0,
      ...(input.count === undefined ? {} : { take: input.count }),
      select: numberSelect,
    }),
  ]);
  if (rows.length === 0) return { total, numbers: [] };
  const waiting = await client.message.groupBy({
    by: ["fromNumber"],
    where: {
      accountId,
      direction: "outbound",
      status: { in: WAITING },
      fromNumber: { in: rows.map((r) => r.number) },
    },
    _count: { _all: true },
  });
  const queued = new Map(waiting.map((w) => [w.fromNumber, w._count._all]));
  return { total, numbers: rows.map((row) => ({ ...rowOf(row), queued: queued.get(row.number) ?? 0 })) };
}

/**
 * Provisions a number to the account. Provisioning a number the account holds already is idempotent: the number is
 * answered as it is (`created` false) and nothing changes; label and rate are changed with updateNumber.
 */
export async function provisionNumber(
  input: {
    accountId: string;
    number: string;
    label?: string;
    ratePerSecond?: number;
    carrier?: string | null;
    /** The provider's id for the number (imported from or bought at a provider). */
    providerNumberId?: string;
  } & Acting,
): Promise<NumberRow & { created: boolean }> {
  const { accountId } = input;
  const fields = parseInput(provisionNumberInput, {
    number: input.number,
    label: input.label,
    ratePerSecond: input.ratePerSecond,
    carrier: input.carrier,
  });
  const digits = validTn(fields.number)!;
  await requireAccount(accountId);
  const carrierId = await resolveCarrier(accountId, fields.carrier);
  const existing = async () => {
    const row = await db().phoneNumber.findUnique({
      where: { number: digits },
      select: { ...numberSelect, accountId: true },
    });
    if (row && row.accountId !== accountId) throw heldElsewhere(digits);
    return row ? { ...rowOf(row), created: false } : null;
  };
  const held = await existing();
  if (held) return held;
  try {
    const row = await db().$transaction(async (tx) => {
      const created = await tx.phoneNumber.create({
        data: {
          id: uuidv4(),
          accountId,
          number: digits,
          label: fields.label ?? "",
          ...(fields.ratePerSecond === undefined ? {} : { ratePerSecond: fields.ratePerSecond }),
          carrierId: carrierId ?? null,
          providerNumberId: input.providerNumberId ?? null,
        },
        select: numberSelect,
      });
      await touchConnections(tx, [carrierId ?? null]);
      await recordAudit(
        {
          accountId,
          actor: input.actor,
          action: "number.provisioned",
          target: withPlus(digits),
          detail: describeFields(rowOf(created)),
          ip: input.ip,
        },
        tx,
      );
      return rowOf(created);
    });
    forgetNumberOwner(digits);
    return { ...row, created: true };
  } catch (error) {
    // Two requests for the same number at once: the one that lost answers as if it had come second.
    if (isDuplicateKeyError(error)) {
      const raced = await existing();
      if (raced) return raced;
    }
    throw error;
  }
}

function describeFields(row: { label: string; ratePerSecond: number; carrier: string | null }): string {
  return [
    row.label ? `label "${row.label}"` : "",
    `${row.ratePerSecond} msgs/s`,
    row.carrier ? `carrier "${row.carrier}"` : "",
  ]
    .filter(Boolean)
    .join(", ");
}

/** Changes a held number's label and/or sending rate. The rate applies from the delivery worker's next round. */
export async function updateNumber(
  input: {
    accountId: string;
    number: string;
    label?: string;
    ratePerSecond?: number;
    carrier?: string | null;
  } & Acting,
): Promise<NumberRow> {
  const { accountId } = input;
  const fields = parseInput(updateNumberInput, {
    label: input.label,
    ratePerSecond: input.ratePerSecond,
    carrier: input.carrier,
  });
  const digits = namedDigits(input.number);
  const carrierId = await resolveCarrier(accountId, fields.carrier);
  return db().$transaction(async (tx) => {
    const before = await tx.phoneNumber.findFirst({
      where: { number: digits, accountId },
      select: { id: true, ...numberSelect },
    });
    if (!before) throw notHeld(digits);
    const after = await tx.phoneNumber.update({
      where: { id: before.id },
      data: {
        ...(fields.label === undefined ? {} : { label: fields.label }),
        ...(fields.ratePerSecond === undefined ? {} : { ratePerSecond: fields.ratePerSecond }),
        ...(carrierId === undefined ? {} : { carrierId }),
      },
      select: numberSelect,
    });
    if (before.carrierId !== after.carrierId) await touchConnections(tx, [before.carrierId, after.carrierId]);
    const changes = [
      before.carrierId !== after.carrierId
        ? `carrier "${before.carrier?.name ?? "default"}" → "${after.carrier?.name ?? "default"}"`
        : "",
      before.label !== after.label ? `label "${before.label}" → "${after.label}"` : "",
      before.ratePerSecond !== after.ratePerSecond
        ? `rate ${before.ratePerSecond} → ${after.ratePerSecond} msgs/s`
        : "",
    ].filter(Boolean);
    if (changes.length > 0) {
      await recordAudit(
        {
          accountId,
          actor: input.actor,
          action: "number.updated",
          target: withPlus(digits),
          detail: changes.join(", "),
          ip: input.ip,
        },
        tx,
      );
    }
    return rowOf(after);
  });
}

/**
 * Releases a held number: it can no longer send (FromNotOwned) and texts sent to it are no longer received. Messages
 * still queued to leave from it would never leave, so they are cancelled as a send from the released number would
 * be refused: status `rejected`, reason FromNotOwned, with a `rejected` SDR. A message whose parts are being handed
 * to the carrier right now is let finish: the release is refused for the few seconds that takes.
 */
export async function releaseNumber(
  input: { accountId: string; number: string } & Acting,
): Promise<{ number: string; cancelledMessages: number }> {
  const { accountId } = input;
  const digits = namedDigits(input.number);
  const fromNumber = { accountId, fromNumber: digits, direction: "outbound" };
  // The live view's wake-up, once the cancellations are committed.
  const later = new Set<() => void>();
  const cancelled = await db().$transaction(async (tx) => {
    const held = await tx.phoneNumber.findFirst({ where: { number: digits, accountId }, select: { id: true } });
    if (!held) throw notHeld(digits);
    const at = new Date();
    const queued = await tx.message.findMany({
      where: { ...fromNumber, status: { in: WAITING_STATUSES } },
      select: { id: true, referenceId: true },
    });
    const refused = { status: "rejected", rejectReason: "FromNotOwned", nextAttemptAt: null };
    const sdrs = queued.map((m) =>
      sdrRow(m.id, accountId, "rejected", at.getTime(), { statusDetails: "FromNotOwned", referenceId: m.referenceId }),
    );
    const ids = queued.map((m) => m.id);
    const changes = [{ ids, set: refused, onlyFrom: { status: WAITING_STATUSES } }];
    const unmoved = await recordTransitionsInTx(tx, { changes, sdrs, at }, later);
    const rejected = ids.filter((id) => !unmoved.has(id));
    const sending = await tx.message.count({ where: { ...fromNumber, status: "sending" } });
    if (sending > 0) {
      // Rolls the cancellations back too: the number stays as it was.
      throw new ApiError("InvalidRequest", {
        detail: `${plural(sending, "message")} from ${withPlus(digits)} ${sending === 1 ? "is" : "are"} being handed to the carrier right now; try again in a minute`,
      });
    }
    await tx.phoneNumber.delete({ where: { id: held.id } });
    await recordAudit(
      {
        accountId,
        actor: input.actor,
        action: "number.released",
        target: withPlus(digits),
        detail: rejected.length > 0 ? `cancelled ${plural(rejected.length, "queued message")}` : "",
        ip: input.ip,
      },
      tx,
    );
    return rejected.length;
  });
  for (const run of later) run();
  forgetNumberOwner(digits);
  return { number: digits, cancelledMessages: cancelled };
}

function plural(n: number, noun: string): string {
  return `${n.toLocaleString("en-US")} ${noun}${n === 1 ? "" : "s"}`;
}

/** The account's numbers (digits), in order: what staff pick a sending number from. */
export async function accountNumbers(accountId: string): Promise<string[]> {
  const rows = await db().phoneNumber.findMany({
    where: { accountId },
    select: { number: true },
    orderBy: { number: "asc" },
  });
  return rows.map((r) => r.number);
}
