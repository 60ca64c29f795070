import { withoutAuth } from "@/lib/api/with-api-key";

// Any other path under /api: UnknownResource, whatever the method, as under /v3.
export const GET = withoutAuth("UnknownResource");
export const POST = withoutAuth("UnknownResource");
export const PUT = withoutAuth("UnknownResource");
export const DELETE = withoutAuth("UnknownResource");
export const PATCH = withoutAuth("UnknownResource");
