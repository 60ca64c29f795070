import { cpus, totalmem } from "node:os";

/** The p-th percentile of times sorted ascending (NaN for none). */
export function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? NaN;
}

/** The machine and database, for the tables' captions and the results files. */
export function machineCaption(database: string): string {
  return `${cpus().length} × ${cpus()[0]?.model ?? "cpu"}, ${Math.round(totalmem() / 2 ** 30)} GiB, Node ${process.version}, ${database}`;
}
