import smpp from "smpp";

// SMPP command_status values as the carrier reports and logs them: the spec's name and the hex code.

export const ESME_RINVCMDID = 0x03;
/** deliver_sm not handled, try again later. */
export const ESME_RX_T_APPN = 0x64;
/** deliver_sm that cannot be handled: a retry cannot help. */
export const ESME_RX_P_APPN = 0x65;
/** Statuses after which the same submit may well succeed later: ESME_RTHROTTLED, ESME_RMSGQFUL, ESME_RSYSERR. */
export const TEMPORARY_STATUSES: ReadonlySet<number> = new Set([0x58, 0x14, 0x08]);
/** Statuses by which the SMSC says a session sends too fast: ESME_RTHROTTLED, ESME_RMSGQFUL. */
export const THROTTLING_STATUSES: ReadonlySet<number> = new Set([0x58, 0x14]);

const statusNames: ReadonlyMap<number, string> = (() => {
  const names = new Map<number, string>();
  for (const [name, value] of Object.entries(smpp.errors)) if (!names.has(value)) names.set(value, name);
  return names;
})();

export function statusName(status: number): string {
  return statusNames.get(status) ?? "unknown command_status";
}

export function statusCode(status: number): string {
  return `0x${status.toString(16).padStart(2, "0")}`;
}
