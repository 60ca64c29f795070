import { cache } from "react";
import { forbidden, redirect } from "next/navigation";
import { currentPortalUser, type PortalUser } from "@/lib/auth/portal-session";

// Every portal page asks one of these first: the user is read again from the database on each request, so a
// disabled user is signed out and a changed role applies at once; an agent on an admin page gets the 403 page.

// The layout and the page both ask: one session check per request.
const userOfRequest = cache(currentPortalUser);

/** Signed in, nothing more: the portal's layout and the Profile page, where a user enrols in two-factor. */
export async function requireSignedIn(): Promise<PortalUser> {
  const user = await userOfRequest();
  if (!user) redirect("/login");
  return user;
}

/** Signed in, with two-factor on when the account requires it (otherwise to the Profile page to set it up). */
export async function requireUser(): Promise<PortalUser> {
  const user = await requireSignedIn();
  if (user.mustEnrolTwoFactor) redirect("/profile");
  return user;
}

export async function requireAdmin(): Promise<PortalUser> {
  const user = await requireUser();
  if (user.role !== "admin") forbidden();
  return user;
}
