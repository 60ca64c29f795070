import { describeBytes } from "../../media/media-types";

// What a carrier's MMS centre does with an MMS before it reaches the handset: it fetches each medium from the URL it
// was given. The simulator does the same with Parley's URLs of the fitted copies, so a simulated MMS shows what the
// carrier really got (type and size) in its SDR, and a medium that cannot be fetched fails the message as a
// carrier would fail it.

const FETCH_TIMEOUT_MS = 15_000;

export type MmsFetch = { ok: true; words: string } | { ok: false; detail: string };

export async function fetchMmsMedia(urls: readonly string[]): Promise<MmsFetch> {
  const got: string[] = [];
  for (const [index, url] of urls.entries()) {
    let response: Response;
    try {
      response = await fetch(url, { redirect: "error", signal: AbortSignal.timeout(FETCH_TIMEOUT_MS) });
    } catch (error) {
      return { ok: false, detail: `media ${index + 1} could not be fetched (${(error as Error).message})` };
    }
    if (!response.ok) {
      await response.body?.cancel();
      return { ok: false, detail: `media ${index + 1} could not be fetched (HTTP ${response.status})` };
    }
    const size = (await response.arrayBuffer()).byteLength;
    const type = (response.headers.get("content-type") ?? "unknown type").split(";")[0]!;
    got.push(`media ${index + 1}: ${type}, ${describeBytes(size)}`);
  }
  return { ok: true, words: got.join("; ") };
}
