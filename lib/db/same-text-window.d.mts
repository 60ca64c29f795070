export declare class SameTextWindow {
  add(accountId: string, textHash: string, second: number, count: number): void;
  total(accountId: string, textHash: string, since: number, enough?: number): number;
  prune(before: number): void;
  readonly size: number;
}
