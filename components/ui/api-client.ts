// The portal's one way to call the server from the browser: JSON in, the v3 envelope out. A refusal becomes an
// ApiFailure carrying the envelope's code, its words and the field it names, so forms can show it beside the field.

export class ApiFailure extends Error {
  constructor(
    readonly code: string,
    readonly statusCode: number,
    message: string,
    readonly field?: string,
    /** The server's own words on what is wrong (`data.error_message`), without the code's fixed text. */
    readonly detail?: string,
  ) {
    super(message);
    this.name = "ApiFailure";
  }
}

export type Query = Record<string, string | number | boolean | undefined | null>;

export function withQuery(path: string, query?: Query): string {
  if (!query) return path;
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(query)) {
    if (value !== undefined && value !== null && value !== "") params.set(key, String(value));
  }
  const text = params.toString();
  return text ? `${path}${path.includes("?") ? "&" : "?"}${text}` : path;
}

interface EnvelopeBody {
  status?: string;
  statusCode?: number;
  statusMessage?: string;
  data?: Record<string, unknown> & { error_message?: string; field?: string };
}

/** Calls a portal route and answers the envelope's `data`; throws ApiFailure for anything but success. */
export async function apiCall<T = Record<string, unknown>>(
  path: string,
  init: { method?: string; body?: unknown; query?: Query; signal?: AbortSignal } = {},
): Promise<T> {
  let response: Response;
  try {
    response = await fetch(withQuery(path, init.query), {
      method: init.method ?? "GET",
      headers: init.body === undefined ? undefined : { "content-type": "application/json" },
      body: init.body === undefined ? undefined : JSON.stringify(init.body),
      credentials: "same-origin",
      signal: init.signal,
    });
  } catch (error) {
    if ((error as Error).name === "AbortError") throw error;
    throw new ApiFailure("NetworkError", 0, "The server could not be reached. Check your connection and try again.");
  }
  let body: EnvelopeBody | null = null;
  try {
    body = (await response.json()) as EnvelopeBody;
  } catch {
    body = null;
  }
  if (response.ok && body) return (body.data ?? {}) as T;
  if (response.status === 401) {
    // The session ended (expired, signed out elsewhere, user disabled): back to the sign-in page.
    if (typeof window !== "undefined")
      window.location.assign(`/login?callbackUrl=${encodeURIComponent(location.pathname)}`);
  }
  const detail = body?.data?.error_message;
  const message = detail ? `${body?.statusMessage}: ${detail}` : (body?.statusMessage ?? `HTTP ${response.status}`);
  throw new ApiFailure(body?.status ?? "SystemFailure", response.status, message, body?.data?.field, detail);
}

/** A readable sentence for anything a mutation or query threw. */
export function failureText(error: unknown): string {
  if (error instanceof ApiFailure) return error.message;
  return error instanceof Error ? error.message : String(error);
}
