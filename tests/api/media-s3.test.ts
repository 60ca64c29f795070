/* eslint-disable @typescript-eslint/no-explicit-any -- envelopes read loosely in assertions */
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { existsSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { GetObjectCommand, S3Client } from "@aws-sdk/client-s3";
import sharp from "sharp";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServer, type RunningServer } from "../helpers/server";
import { call, createTestAccount, randomNumber, releaseFactories, type TestAccount } from "../helpers/factories";
import { has, waitForSdrs } from "../helpers/wait-for";
import { buildMediaFixtures, type MediaFixtures } from "../helpers/media-fixtures";
import { startMediaServer, type MediaServer } from "../helpers/media-server";
import { startS3Server, type S3TestServer } from "../helpers/s3-server";
import { db } from "../../lib/db/client";

// The scale-out media store: MEDIA_STORE=s3://bucket/prefix against a real S3-compatible server on loopback. Uploads,
// fetched originals and fitted copies go to the bucket under the prefix, nothing to the server's disk, and
// /media/{id} serves them from there.

let dataDir: string;
let fixtures: MediaFixtures;
let media: MediaServer;
let s3: S3TestServer;
let server: RunningServer;
let account: TestAccount;

beforeAll(async () => {
  dataDir = await mkdtemp(path.join(tmpdir(), "parley-media-s3-"));
  fixtures = await buildMediaFixtures(path.join(dataDir, "fixtures"));
  media = await startMediaServer(fixtures);
  s3 = await startS3Server();
  server = await startServer({
    env: {
      PARLEY_WORKER: "true",
      PARLEY_DATA_DIR: dataDir,
      WORKER_POLL_MS: "50",
      SIMULATOR_RECEIPT_DELAY_MS: "100",
      MEDIA_ALLOW_PRIVATE: "true",
      MEDIA_STORE: `s3://${s3.bucket}/tenant-a`,
      MEDIA_S3_ENDPOINT: s3.endpoint,
      MEDIA_S3_REGION: s3.region,
      MEDIA_S3_ACCESS_KEY_ID: s3.accessKeyId,
      MEDIA_S3_SECRET_ACCESS_KEY: s3.secretAccessKey,
    },
  });
  account = await createTestAccount(server, { name: "Bucket" });
}, 120_000);

afterAll(async () => {
  await releaseFactories();
  await server?.stop();
  await s3?.stop();
  await media?.stop();
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
});

async function objectBytes(key: string): Promise<Buffer> {
  const client = new S3Client({
    endpoint: s3.endpoint,
    region: s3.region,
    forcePathStyle: true,
    credentials: { accessKeyId: s3.accessKeyId, secretAccessKey: s3.secretAccessKey },
    requestChecksumCalculation: "WHEN_REQUIRED",
    responseChecksumValidation: "WHEN_REQUIRED",
  });
  const answer = await client.send(new GetObjectCommand({ Bucket: s3.bucket, Key: key }));
  client.destroy();
  return Buffer.from(await answer.Body!.transformToByteArray());
}

describe("media in an S3-compatible store", () => {
  it("keeps an upload in the bucket under the prefix and serves it from there, ranges included", async () => {
    const form = new FormData();
    form.append("file", new Blob([new Uint8Array(await readFile(fixtures.rotatedJpeg.path))]), "side.jpg");
    const res = await fetch(`${server.baseUrl}/v3/media?accountId=${account.accountId}`, {
      method: "POST",
      headers: { apikey: account.apiKey },
      body: form,
    });
    const { data } = (await res.json()) as any;
    expect(data.contentType).toBe("image/jpeg");
    const row = await db().media.findUniqueOrThrow({ where: { id: data.mediaId } });
    const stored = await objectBytes(`tenant-a/${row.storageKey}`);
    expect(stored.equals(await readFile(fixtures.rotatedJpeg.path))).toBe(true);
    expect(existsSync(path.join(dataDir, "media"))).toBe(false);

    const served = await fetch(`${server.baseUrl}/media/${data.mediaId}`);
    expect(Buffer.from(await served.arrayBuffer()).equals(stored)).toBe(true);
    const part = await fetch(`${server.baseUrl}/media/${data.mediaId}`, { headers: { range: "bytes=10-19" } });
    expect(part.status).toBe(206);
    expect(Buffer.from(await part.arrayBuffer()).equals(stored.subarray(10, 20))).toBe(true);
  });

  it("fits a fetched picture and keeps both in the bucket; the carrier gets the upright copy", async () => {
    const res = await call(server, "POST", "/v3/messages", {
      headers: account.headers,
      body: {
        accountId: account.accountId,
        from: account.numbers[0],
        to: randomNumber(),
        media: [media.url(`/${fixtures.rotatedJpeg.name}`)],
      },
    });
    const id = res.json.data.messageInfo[0].messageId;
    await waitForSdrs(server, account, id, has("message_sent"), 30_000);
    const carried = await db().messageMedia.findFirstOrThrow({ where: { messageId: id }, include: { media: true } });
    const copy = await objectBytes(`tenant-a/${carried.media.storageKey}`);
    // Taken on its side (EXIF orientation 6): the copy is upright, 800×1200, with no orientation left to apply.
    const meta = await sharp(copy).metadata();
    expect([meta.width, meta.height]).toEqual([800, 1200]);
    expect(meta.orientation ?? 1).toBe(1);
    expect(carried.media.origin).toBe("fitted");
    const original = await db().media.findUniqueOrThrow({ where: { id: carried.media.parentId! } });
    expect(original.sourceUrl).toBe(media.url(`/${fixtures.rotatedJpeg.name}`));
    expect((await objectBytes(`tenant-a/${original.storageKey}`)).length).toBe(fixtures.rotatedJpeg.size);
  });
});
