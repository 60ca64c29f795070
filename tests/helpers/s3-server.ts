import { mkdtemp, rm } from "node:fs/promises";
import { createRequire } from "node:module";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";

// A real S3-compatible server on 127.0.0.1 (s3rver: S3's HTTP API over a folder), as an operator's MinIO or Ceph
// would be: requests are signed, objects are stored and read back over the wire. Each start has a folder and a
// bucket of its own.

// s3rver ships no types; the part of it used here. It is a Koa application: `middleware` is Koa's own list.
interface KoaContext {
  method: string;
  path: string;
  querystring: string;
  status: number;
}
interface S3rverServer {
  middleware: Array<(ctx: KoaContext, next: () => Promise<void>) => Promise<void>>;
  run(): Promise<AddressInfo>;
  close(): Promise<void>;
}
type S3rverClass = new (options: {
  address: string;
  port: number;
  directory: string;
  silent: boolean;
  configureBuckets: Array<{ name: string }>;
}) => S3rverServer;

const S3rver = createRequire(import.meta.url)("s3rver") as S3rverClass;

export interface S3TestServer {
  endpoint: string;
  bucket: string;
  region: string;
  /** s3rver's one account. */
  accessKeyId: string;
  secretAccessKey: string;
  /** Every request it answered, in order ("POST", "/parley-media/", "delete=", 200). */
  requests: Array<{ method: string; path: string; query: string; status: number }>;
  stop(): Promise<void>;
}

export async function startS3Server(bucket = "parley-media"): Promise<S3TestServer> {
  const directory = await mkdtemp(join(tmpdir(), "parley-s3-"));
  const server = new S3rver({
    address: "127.0.0.1",
    port: 0,
    directory,
    silent: true,
    configureBuckets: [{ name: bucket }],
  });
  const requests: S3TestServer["requests"] = [];
  server.middleware.unshift(async (ctx, next) => {
    const request = { method: ctx.method, path: ctx.path, query: ctx.querystring };
    try {
      await next();
      requests.push({ ...request, status: ctx.status });
    } catch (error) {
      // Answered by s3rver's error handler, outside the middleware: its status is the error's.
      requests.push({ ...request, status: (error as { status?: number }).status ?? 500 });
      throw error;
    }
  });
  const { port } = await server.run();
  return {
    requests,
    endpoint: `http://127.0.0.1:${port}`,
    bucket,
    region: "us-east-1",
    accessKeyId: "S3RVER",
    secretAccessKey: "S3RVER",
    async stop() {
      await server.close();
      await rm(directory, { recursive: true, force: true });
    },
  };
}
