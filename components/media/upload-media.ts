import { ApiFailure } from "@/components/ui/api-client";

// One file to Parley's media store (POST /v3/media), as the signed-in user: the portal's session cookie
// authenticates it, and the browser's own Origin header is what the cross-site check reads, as for every portal
// request. Multipart, so apiCall (JSON only) does not carry it; refusals come back in the same envelope.

export interface UploadedMedium {
  mediaId: string;
  /** Parley's address of the medium, what a message's `media` names. */
  url: string;
  contentType: string;
  size: number;
}

interface Envelope {
  status?: string;
  statusMessage?: string;
  data?: Partial<UploadedMedium> & { error_message?: string; field?: string };
}

function refusal(response: Response, body: Envelope | null): ApiFailure {
  const detail = body?.data?.error_message;
  if (body?.statusMessage) {
    const message = detail ? `${body.statusMessage}: ${detail}` : body.statusMessage;
    return new ApiFailure(body.status ?? "SystemFailure", response.status, message, body.data?.field, detail);
  }
  // A proxy in front of Parley may refuse a large body before Parley sees it, in its own words (or none).
  const words =
    response.status === 413
      ? "The server refused the file as too large (HTTP 413)."
      : `The server could not take the file (HTTP ${response.status}).`;
  return new ApiFailure("SystemFailure", response.status, words);
}

/** Uploads one file for the account; throws ApiFailure with the server's words when it is refused. */
export async function uploadMedium(accountId: string, file: File, signal?: AbortSignal): Promise<UploadedMedium> {
  const form = new FormData();
  form.append("file", file, file.name);
  let response: Response;
  try {
    response = await fetch(`/v3/media?accountId=${encodeURIComponent(accountId)}`, {
      method: "POST",
      body: form,
      credentials: "same-origin",
      signal,
    });
  } catch (error) {
    if ((error as Error).name === "AbortError") throw error;
    throw new ApiFailure("NetworkError", 0, "The server could not be reached. Check your connection and try again.");
  }
  let body: Envelope | null = null;
  try {
    body = (await response.json()) as Envelope;
  } catch {
    body = null;
  }
  const data = body?.data;
  if (response.ok && data && typeof data.url === "string" && typeof data.mediaId === "string") {
    return {
      mediaId: data.mediaId,
      url: data.url,
      contentType: typeof data.contentType === "string" ? data.contentType : file.type,
      size: typeof data.size === "number" ? data.size : file.size,
    };
  }
  throw refusal(response, body);
}
