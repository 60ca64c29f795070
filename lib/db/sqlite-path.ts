import { isAbsolute, resolve } from "node:path";

// "file:./data/parley.db" → an absolute path, resolved against the working directory as Prisma does.
export function sqliteFilePath(url: string): string {
  const path = url.replace(/^file:(\/\/)?/i, "").split("?")[0] ?? "";
  if (path === ":memory:") return path;
  return isAbsolute(path) ? path : resolve(/*turbopackIgnore: true*/ process.cwd(), path);
}
