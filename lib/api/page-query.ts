import { z } from "zod";

/** `start` and `count` of a paged admin list: from 0, at most 100 a page (25 unless asked). */
export const pageQuery = z.object({
  start: z.coerce.number().int().min(0).default(0),
  count: z.coerce.number().int().min(1).max(100).default(25),
});
export type PageQuery = z.infer<typeof pageQuery>;
