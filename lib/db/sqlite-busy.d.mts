export function whileBusy<T>(
  attempt: () => T,
  options?: { deadlineMs?: number; pauseMs?: (tries: number) => number },
): T;
export function isBusy(error: unknown): boolean;
