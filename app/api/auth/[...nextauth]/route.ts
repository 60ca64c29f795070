import NextAuth from "next-auth";
import { authOptions } from "@/lib/auth/auth-options";
import { ApiError } from "@/lib/api/api-error";
import { requestIdFrom } from "@/lib/api/request-id";
import { errorResponse } from "@/lib/api/with-api-key";
import { logger } from "@/lib/log";

// /api/auth/*: next-auth's sign-in, sign-out and session endpoints for the portal.
const handler = NextAuth(authOptions) as (req: Request, ctx: unknown) => Promise<Response>;
export { handler as GET };

// next-auth parses a body declared JSON without catching a parse error (a 500): such a body is InvalidJSON here.
export async function POST(req: Request, ctx: unknown): Promise<Response> {
  if ((req.headers.get("content-type") ?? "").includes("application/json")) {
    try {
      JSON.parse(await req.clone().text());
    } catch {
      const requestId = requestIdFrom(req.headers);
      return errorResponse(new ApiError("InvalidJSON"), req, requestId, logger().child({ reqId: requestId }));
    }
  }
  return handler(req, ctx);
}
