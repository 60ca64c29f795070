export function whileBusy<T>(
  attempt: () => T,
  options?: { deadlineMs?: number; pauseMs?: (tries: number) => number },
): T;
