import NextAuth from "next-auth";
import { authOptions } from "@/lib/auth/auth-options";

// /api/auth/*: next-auth's sign-in, sign-out and session endpoints for the portal.
const handler = NextAuth(authOptions);
export { handler as GET, handler as POST };
