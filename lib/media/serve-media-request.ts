import type { IncomingMessage, ServerResponse } from "node:http";
import { pipeline } from "node:stream/promises";
import { logger } from "../log";
import { isMediaId } from "./media-ids";
import { findServedMedium } from "./media-records";
import { MediaMissingError, mediaStore } from "./media-store";
import { planMediaResponse } from "./serve-media";

// GET/HEAD /media/{id}: a stored medium with its real type and size, in ranges for players (video, audio), as an
// attachment unless it is an image, audio or video, never sniffed. No session: the id is the secret, and carriers,
// webhook receivers and phones fetch from it. An inbound medium still being fetched from its carrier is waited for
// a little (a webhook receiver may ask for it at once), then answered 503 with Retry-After.

const PENDING_WAIT_MS = 10_000;
const PENDING_POLL_MS = 250;

function answerText(res: ServerResponse, status: number, text: string, headers: Record<string, string> = {}): void {
  res.writeHead(status, {
    "content-type": "text/plain; charset=utf-8",
    "cache-control": "no-store",
    "content-length": String(Buffer.byteLength(text)),
    ...headers,
  });
  res.end(text);
}

async function settledMedium(id: string) {
  const deadline = Date.now() + PENDING_WAIT_MS;
  let medium = await findServedMedium(id);
  while (medium?.state === "pending" && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, PENDING_POLL_MS));
    medium = await findServedMedium(id);
  }
  return medium;
}

export async function serveMediaRequest(req: IncomingMessage, res: ServerResponse, id: string): Promise<void> {
  const method = req.method === "HEAD" ? "HEAD" : req.method === "GET" ? "GET" : null;
  if (!method) return answerText(res, 405, "Only GET and HEAD are allowed here.\n", { allow: "GET, HEAD" });
  const medium = isMediaId(id) ? await settledMedium(id) : null;
  if (!medium) return answerText(res, 404, "No such medium.\n");
  if (medium.state === "pending") {
    return answerText(res, 503, "The attachment is still being fetched from the carrier.\n", { "retry-after": "5" });
  }
  if (medium.state !== "ready") return answerText(res, 404, "Attachment unavailable.\n");
  const range = typeof req.headers.range === "string" ? req.headers.range : null;
  const plan = planMediaResponse({
    method,
    contentType: medium.contentType,
    size: medium.size,
    fileName: medium.fileName,
    range,
  });
  // A capability URL meant to be shared: an application may show the pictures its webhooks report on its own pages.
  res.setHeader("cross-origin-resource-policy", "cross-origin");
  if (method === "HEAD" || plan.status === 416) {
    res.writeHead(plan.status, plan.headers);
    res.end();
    return;
  }
  let stream: NodeJS.ReadableStream;
  try {
    stream = await mediaStore().open(medium.storageKey, plan.range ?? undefined);
  } catch (error) {
    if (error instanceof MediaMissingError) return answerText(res, 404, "Attachment unavailable.\n");
    throw error;
  }
  res.writeHead(plan.status, plan.headers);
  await pipeline(stream, res).catch((error: unknown) => {
    // A client that goes away mid-file is not a failure of the server.
    if ((error as NodeJS.ErrnoException).code !== "ERR_STREAM_PREMATURE_CLOSE") {
      logger().warn({ err: error, mediaId: id }, "medium not served whole");
    }
  });
}
