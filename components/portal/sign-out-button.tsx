"use client";

import { signOut } from "next-auth/react";

export function SignOutButton() {
  return (
    <button
      type="button"
      onClick={() => signOut({ callbackUrl: "/login" })}
      className="text-sm text-gray-300 underline-offset-2 hover:text-white hover:underline"
    >
      Sign out
    </button>
  );
}
