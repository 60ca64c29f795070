"use client";

import { createContext, useContext, type ReactNode } from "react";

export interface PortalViewer {
  userId: string;
  email: string;
  name: string;
  role: "admin" | "agent";
  accountId: string;
  accountName: string;
  /** The account's time zone (Settings): every time the portal shows is in it, on the server and in the browser. */
  timeZone: string;
}

const Context = createContext<PortalViewer | null>(null);

export function PortalViewerProvider({ viewer, children }: { viewer: PortalViewer; children: ReactNode }) {
  return <Context.Provider value={viewer}>{children}</Context.Provider>;
}

/** Who is signed in, for client components (the server checked it; the server checks again on every call). */
export function useViewer(): PortalViewer {
  const viewer = useContext(Context);
  if (!viewer) throw new Error("useViewer outside the portal layout");
  return viewer;
}

/** The admin API path of the viewer's account: `/api/admin/accounts/{id}` + rest. */
export function useAccountApi(): (rest: string) => string {
  const { accountId } = useViewer();
  return (rest) => `/api/admin/accounts/${encodeURIComponent(accountId)}${rest}`;
}
