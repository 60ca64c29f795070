import { withoutAuth } from "@/lib/api/with-api-key";

// Any other path under /v3: UnknownResource, whatever the method.
export const GET = withoutAuth("UnknownResource");
export const POST = withoutAuth("UnknownResource");
export const PUT = withoutAuth("UnknownResource");
export const DELETE = withoutAuth("UnknownResource");
export const PATCH = withoutAuth("UnknownResource");
