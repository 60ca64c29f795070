import { ApiError } from "../../api/api-error";
import { recordAudit } from "../../audit/audit-trail";
import { db } from "../../db/client";
import { validTn } from "../../messaging/phone-number";
import { provisionNumber, releaseNumber, updateNumber } from "../../numbers/manage-numbers";
import { isHttpProvider, providerFor } from "../http/providers";
import type { AvailableNumber, Provider, ProviderNumber } from "../http/provider";
import { findConnectionRow, openConnection, type OpenConnection } from "./manage-connections";
import { providerFailure } from "./test-connection";

// Numbers at the provider: the ones its account holds, imported in one step (their inbound URL set at the provider
// through its API); new ones searched for and bought; bought or imported ones released back.

export interface HeldAtProvider extends ProviderNumber {
  /** imported: this account holds it, routed to this connection; elsewhere: another connection or account has it. */
  status: "available" | "imported" | "elsewhere";
}

interface Acting {
  actor: string;
  ip?: string;
}

async function providerOf(
  accountId: string,
  idOrName: string,
): Promise<{ connection: OpenConnection; provider: Provider }> {
  const connection = openConnection(await findConnectionRow(accountId, idOrName));
  if (!isHttpProvider(connection.type))
    throw new ApiError("InvalidRequest", {
      detail: `a ${connection.type} connection has no numbers to list`,
      field: "carrier",
    });
  return { connection, provider: providerFor(connection) };
}

function unsupported(connection: OpenConnection, what: string): never {
  throw new ApiError("InvalidRequest", {
    detail: `${connection.type} connections cannot ${what} here yet`,
    field: "carrier",
  });
}

export async function listProviderNumbers(accountId: string, idOrName: string): Promise<HeldAtProvider[]> {
  return heldAtProvider(accountId, await providerOf(accountId, idOrName));
}

async function heldAtProvider(
  accountId: string,
  { connection, provider }: { connection: OpenConnection; provider: Provider },
): Promise<HeldAtProvider[]> {
  if (!provider.listNumbers) unsupported(connection, "list the provider's numbers");
  const numbers = await provider.listNumbers().catch(providerFailure);
  const held = await db().phoneNumber.findMany({
    where: { number: { in: numbers.map((n) => n.number) } },
    select: { number: true, accountId: true, carrierId: true },
  });
  const byNumber = new Map(held.map((h) => [h.number, h]));
  return numbers.map((n) => {
    const row = byNumber.get(n.number);
    const status = !row
      ? "available"
      : row.accountId === accountId && row.carrierId === connection.id
        ? "imported"
        : "elsewhere";
    return { ...n, status };
  });
}

/**
 * Imports the provider's numbers (all that are available, or those named) into the account, routed to the
 * connection: each is first pointed at the connection's inbound URL at the provider, then provisioned. A number the
 * account already holds on another route is moved to this connection.
 */
export async function importProviderNumbers(
  input: { accountId: string; idOrName: string; numbers?: string[] } & Acting,
): Promise<{ imported: string[]; skipped: { number: string; why: string }[] }> {
  const { connection, provider } = await providerOf(input.accountId, input.idOrName);
  if (!provider.listNumbers || !provider.configureNumber) unsupported(connection, "import numbers");
  const listed = await heldAtProvider(input.accountId, { connection, provider });
  const wanted = input.numbers?.map((n) => validTn(n) ?? n.replace(/\D/g, ""));
  const imported: string[] = [];
  const skipped: { number: string; why: string }[] = [];
  for (const want of wanted ?? listed.map((n) => n.number)) {
    const number = listed.find((n) => n.number === want);
    if (!number) {
      skipped.push({ number: want, why: "the provider account does not hold it" });
      continue;
    }
    if (number.status === "imported") {
      skipped.push({ number: want, why: "imported already" });
      continue;
    }
    const owner = await db().phoneNumber.findUnique({ where: { number: want }, select: { accountId: true } });
    if (owner && owner.accountId !== input.accountId) {
      skipped.push({ number: want, why: "another account holds it" });
      continue;
    }
    await provider.configureNumber(number).catch(providerFailure);
    if (owner)
      await updateNumber({
        accountId: input.accountId,
        number: want,
        carrier: connection.id,
        actor: input.actor,
        ip: input.ip,
      });
    else
      await provisionNumber({
        accountId: input.accountId,
        number: want,
        label: number.label.slice(0, 100),
        carrier: connection.id,
        providerNumberId: number.providerNumberId,
        actor: input.actor,
        ip: input.ip,
      });
    await db().phoneNumber.update({ where: { number: want }, data: { providerNumberId: number.providerNumberId } });
    imported.push(want);
  }
  if (imported.length > 0)
    await recordAudit({
      accountId: input.accountId,
      actor: input.actor,
      action: "carrier.numbers_imported",
      target: connection.name,
      detail: imported
        .map((n) => `+${n}`)
        .join(", ")
        .slice(0, 1000),
      ip: input.ip,
    });
  return { imported, skipped };
}

export async function searchProviderNumbers(input: {
  accountId: string;
  idOrName: string;
  country: string;
  areaCode?: string;
}): Promise<AvailableNumber[]> {
  const { connection, provider } = await providerOf(input.accountId, input.idOrName);
  if (!provider.searchNumbers) unsupported(connection, "search for numbers");
  if (!/^[A-Za-z]{2}$/.test(input.country))
    throw new ApiError("InvalidRequest", {
      detail: "the country is a two-letter ISO code, such as US",
      field: "country",
    });
  if (input.areaCode !== undefined && !/^\d{1,6}$/.test(input.areaCode))
    throw new ApiError("InvalidRequest", { detail: "the area code is 1 to 6 digits", field: "areaCode" });
  return provider.searchNumbers({ country: input.country, areaCode: input.areaCode }).catch(providerFailure);
}

/** Buys a number at the provider, already pointed at this connection, and provisions it to the account. */
export async function buyProviderNumber(input: { accountId: string; idOrName: string; number: string } & Acting) {
  const { connection, provider } = await providerOf(input.accountId, input.idOrName);
  if (!provider.buyNumber) unsupported(connection, "buy numbers");
  const digits = validTn(input.number);
  if (!digits)
    throw new ApiError("InvalidRequest", { detail: `"${input.number}" is not a telephone number`, field: "number" });
  const held = await db().phoneNumber.findUnique({ where: { number: digits }, select: { id: true } });
  if (held) throw new ApiError("InvalidRequest", { detail: `+${digits} is provisioned already`, field: "number" });
  const bought = await provider.buyNumber(digits).catch(providerFailure);
  await recordAudit({
    accountId: input.accountId,
    actor: input.actor,
    action: "carrier.number_bought",
    target: `+${bought.number}`,
    detail: `at ${connection.name} (${connection.type})`,
    ip: input.ip,
  });
  return provisionNumber({
    accountId: input.accountId,
    number: bought.number,
    carrier: connection.id,
    providerNumberId: bought.providerNumberId,
    actor: input.actor,
    ip: input.ip,
  });
}

/**
 * Releases a number from the account, then back to its provider (through the connection it is routed to). Should the
 * provider fail, the number is out of the account and the error says so: release it in the provider's console.
 */
export async function releaseProviderNumber(input: { accountId: string; number: string } & Acting) {
  const digits = validTn(input.number) ?? input.number.replace(/\D/g, "");
  const row = await db().phoneNumber.findFirst({
    where: { accountId: input.accountId, number: digits },
    select: { carrierId: true, providerNumberId: true, label: true },
  });
  if (!row?.carrierId)
    throw new ApiError("InvalidRequest", {
      detail: `+${digits} is not routed to a provider connection`,
      field: "number",
    });
  const { connection, provider } = await providerOf(input.accountId, row.carrierId);
  if (!provider.releaseNumber) unsupported(connection, "release numbers");
  // From the account first: a number still sending cannot be released, and must not be gone at the provider then.
  const released = await releaseNumber({
    accountId: input.accountId,
    number: digits,
    actor: input.actor,
    ip: input.ip,
  });
  await provider
    .releaseNumber({ providerNumberId: row.providerNumberId ?? digits, number: digits, label: row.label })
    .catch(providerFailure);
  return released;
}
