export declare const WAL_BACKSTOP_PAGES: number;
export declare const CHECKPOINT_EVERY_MS: number;
