import type { NextAuthOptions } from "next-auth";
import CredentialsProvider from "next-auth/providers/credentials";
import { z } from "zod";
import { db } from "../db/client";
import { verifyPassword } from "./passwords";

// Portal sign-in: email and password of a portal user, JWT sessions. Portal sessions never authenticate the
// REST API, and API keys never the portal (the decision).
const credentials = z.object({
  email: z.string().trim().toLowerCase().pipe(z.email()),
  password: z.string().min(1).max(200),
});

export interface PortalUser {
  id: string;
  email: string;
  name: string;
  accountId: string;
  role: "admin" | "agent";
}

export async function authorizePortalUser(input: unknown): Promise<PortalUser | null> {
  const parsed = credentials.safeParse(input);
  if (!parsed.success) return null;
  const user = await db().user.findUnique({ where: { email: parsed.data.email } });
  // Verify against a dummy hash when the user is unknown, so timing does not tell which emails exist.
  const hash =
    user?.passwordHash ?? "scrypt$32768$8$1$AAAAAAAAAAAAAAAAAAAAAA$AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA";
  const ok = await verifyPassword(parsed.data.password, hash);
  if (!user || !ok) return null;
  return {
    id: user.id,
    email: user.email,
    name: user.name,
    accountId: user.accountId,
    role: user.role === "admin" ? "admin" : "agent",
  };
}

export const authOptions: NextAuthOptions = {
  session: { strategy: "jwt", maxAge: 12 * 60 * 60 },
  pages: { signIn: "/login" },
  providers: [
    CredentialsProvider({
      name: "Email and password",
      credentials: { email: { label: "Email", type: "email" }, password: { label: "Password", type: "password" } },
      authorize: (input) => authorizePortalUser(input),
    }),
  ],
  callbacks: {
    jwt({ token, user }) {
      if (user) {
        const portalUser = user as unknown as PortalUser;
        token.accountId = portalUser.accountId;
        token.role = portalUser.role;
      }
      return token;
    },
    session({ session, token }) {
      return {
        ...session,
        user: { ...session.user, id: token.sub, accountId: token.accountId, role: token.role },
      };
    },
  },
};

export interface PortalSession {
  user: { id: string; email: string; name?: string | null; accountId: string; role: "admin" | "agent" };
}
