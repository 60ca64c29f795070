import { z } from "zod";
import type { OpenAPIRegistry } from "@asteasolutions/zod-to-openapi";
import { DOC_EXAMPLES } from "../../messaging/message-serializers";
import { successCodes } from "../error-codes";
import type { ErrorResponses } from "./errors";
import { apiVersion, envelopeOf, requestIdHeader } from "./shared";

// POST /v3/media in the OpenAPI document (lib/media/receive-upload.ts, app/v3/media/route.ts).

const MEDIA_UPLOAD_DESCRIPTION = `Uploads one medium for MMS and answers its URL, to name in a send's \`media\`. The file goes in the multipart
form field \`file\` (\`curl -F file=@photo.jpg\`); up to 25 MB by default (MEDIA_MAX_BYTES). Its type is read from its bytes, not its
name or the part's Content-Type: images (JPEG, PNG, GIF, WebP, HEIC), video (MP4, 3GPP, QuickTime), audio (MP3, AAC/M4A, AMR, Ogg,
WAV), PDF, vCard and iCalendar are accepted; anything else (HTML, SVG, scripts, archives, executables) is refused (InvalidRequest,
field \`file\`).

**Authentication.** An API key, or the portal's session (the composer's and the phone simulator's attachments).

**The URL.** \`data.url\` is \`<server>/media/<mediaId>\`: it needs no credentials (the id is unguessable), so carriers and phones can
fetch what it names. When a send names it, the medium is fitted to the route of the \`from\` number (images resized and re-encoded
under the connection's limit, 600 KB by default) and the carrier receives the URL of the fitted copy; the listing's \`media\` then
shows that URL. A medium no message carries is removed a day after its upload.

**Other URLs in \`media\`.** A send may name any http(s) URL instead: Parley fetches it once (no private addresses, at most
MEDIA_MAX_BYTES, no redirects to forbidden hosts), checks it the same way and fits it. What cannot be fetched or fitted fails the
message with a \`failed\` SDR naming the medium and the reason (e.g. "media 2: 7.4 MB video/mp4, over the 5 MB limit").`;

export function registerMedia(registry: OpenAPIRegistry, errorResponses: ErrorResponses): void {
  const mediaUploadResponse = registry.register(
    "MediaUploadResponse",
    z.object({
      ...envelopeOf("MediaUploadSuccessful"),
      data: z.object({
        apiVersion,
        mediaId: z
          .string()
          .openapi({ description: "md_ and 24 letters and digits.", example: "md_4fQ9xT2mB7kLw0pZs8YcV3nR" }),
        url: z.string().openapi({ description: "The medium's absolute URL, for a send's `media`." }),
        contentType: z.string().openapi({ description: "The type read from the file's bytes.", example: "image/jpeg" }),
        size: z.number().int().openapi({ description: "Bytes.", example: 482133 }),
      }),
    }),
  );
  registry.registerPath({
    method: "post",
    path: "/media",
    operationId: "uploadMedia",
    tags: ["Media"],
    summary: "Upload a medium for MMS",
    description: MEDIA_UPLOAD_DESCRIPTION,
    request: {
      query: z.object({ accountId: z.string().openapi({ example: DOC_EXAMPLES.accountId }) }),
      body: {
        required: true,
        content: {
          "multipart/form-data": {
            schema: z.object({ file: z.string().openapi({ format: "binary", description: "The medium." }) }),
          },
        },
      },
    },
    responses: {
      200: {
        description: successCodes.MediaUploadSuccessful.statusMessage,
        headers: requestIdHeader,
        content: {
          "application/json": {
            schema: mediaUploadResponse,
            example: {
              status: "MediaUploadSuccessful",
              statusCode: 200,
              statusMessage: successCodes.MediaUploadSuccessful.statusMessage,
              statusUri: "",
              data: {
                apiVersion: "v3",
                mediaId: "md_4fQ9xT2mB7kLw0pZs8YcV3nR",
                url: "https://parley.example.com/media/md_4fQ9xT2mB7kLw0pZs8YcV3nR",
                contentType: "image/jpeg",
                size: 482133,
              },
            },
          },
        },
      },
      ...errorResponses("POST", ["MissingAccountId", "InvalidRequest", "Unauthorized", "Forbidden", "SystemFailure"]),
    },
  });
}
