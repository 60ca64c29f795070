// What the CLI prints for people. Scripts use --json instead, so this may change shape freely.

/** "2026-11-22 14:05 UTC": minutes are enough to recognise a key or a number, and UTC reads the same anywhere. */
export function formatDate(date: Date | null | undefined, none = "-"): string {
  if (!date) return none;
  return `${date.toISOString().slice(0, 16).replace("T", " ")} UTC`;
}

/** Left-aligned columns separated by two spaces, with a header row; the last column is not padded. */
export function formatTable(header: string[], rows: string[][]): string {
  const widths = header.map((title, i) => Math.max(title.length, ...rows.map((row) => (row[i] ?? "").length)));
  const line = (cells: string[]) =>
    cells
      .map((cell, i) => (i === cells.length - 1 ? cell : cell.padEnd(widths[i]!)))
      .join("  ")
      .trimEnd();
  return [line(header), ...rows.map(line)].join("\n");
}

/** Storage keeps E.164 digits alone; an operator typed and reads them with the '+'. */
export function e164(digits: string): string {
  return digits.startsWith("+") ? digits : `+${digits}`;
}

export function keyHint(key: { prefix: string; last4: string }): string {
  return `${key.prefix}…${key.last4}`;
}
