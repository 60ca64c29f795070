"use client";

import { useState } from "react";
import { Badge } from "@/components/ui/badge";
import { Button } from "@/components/ui/button";
import { TimeText } from "@/components/ui/time-text";
import type { UserRole } from "@/lib/accounts/user-schema";
import type { UserListing } from "./user-types";

export function UserRow({
  user,
  isSelf,
  busy,
  onRole,
  onDisable,
  onEnable,
  onResetTwoFactor,
}: {
  user: UserListing;
  isSelf: boolean;
  busy: boolean;
  onRole: (role: UserRole) => void;
  onDisable: () => void;
  onEnable: () => void;
  onResetTwoFactor: () => void;
}) {
  // The row is keyed by id, role and the screen's revision, so a saved or refused role resets this choice.
  const [role, setRole] = useState<UserRole>(user.role);
  const disabled = user.state === "disabled";
  const toggle = disabled ? (
    <Button variant="secondary" size="sm" disabled={busy} onClick={onEnable} aria-label={`Enable ${user.email}`}>
      Enable
    </Button>
  ) : (
    <Button
      variant="secondary"
      size="sm"
      disabled={busy || isSelf}
      title={isSelf ? "You cannot disable yourself; another admin can." : undefined}
      onClick={onDisable}
      aria-label={`Disable ${user.email}`}
    >
      Disable
    </Button>
  );
  const badge = <Badge tone={disabled ? "gray" : "green"}>{user.state}</Badge>;
  return (
    <tr className="border-t border-slate-100 align-top">
      <td className="max-w-[16rem] px-3 py-2.5">
        <div className="truncate font-medium text-slate-900" title={user.email}>
          {user.email}
          {isSelf && <span className="ml-1.5 text-xs font-normal text-slate-500">(you)</span>}
        </div>
        {user.name && <div className="truncate text-slate-600">{user.name}</div>}
        {user.twoFactor !== "off" && (
          <div className="mt-1 flex flex-wrap items-center gap-1.5">
            <Badge tone={user.twoFactor === "on" ? "blue" : "gray"}>
              {user.twoFactor === "on" ? "Two-factor on" : "Two-factor setup unfinished"}
            </Badge>
            <Button
              variant="secondary"
              size="sm"
              disabled={busy}
              onClick={onResetTwoFactor}
              aria-label={`Reset two-factor of ${user.email}`}
            >
              Reset two-factor
            </Button>
          </div>
        )}
        {/* What the narrow layout has no columns for. */}
        <div className="mt-1 flex flex-wrap items-center gap-x-2 gap-y-1 text-xs text-slate-500 md:hidden">
          <span className="sm:hidden">{badge}</span>
          <span>
            Last sign-in <TimeText iso={user.lastSignInAt} ago />
          </span>
        </div>
      </td>
      <td className="px-3 py-2.5">
        <div className="flex flex-wrap items-center gap-1.5">
          <select
            aria-label={`Role of ${user.email}`}
            value={role}
            onChange={(e) => setRole(e.target.value as UserRole)}
            className="rounded-md border border-slate-300 bg-white px-2 py-1 text-sm"
          >
            <option value="agent">Agent</option>
            <option value="admin">Admin</option>
          </select>
          <Button
            variant="secondary"
            size="sm"
            disabled={role === user.role || busy}
            onClick={() => onRole(role)}
            aria-label={`Save role of ${user.email}`}
          >
            Save
          </Button>
          {/* The narrow layout's only place for the action (the wide one's column is hidden there). */}
          <span className="sm:hidden">{toggle}</span>
        </div>
      </td>
      <td className="hidden px-3 py-2.5 text-slate-600 md:table-cell">
        <TimeText iso={user.lastSignInAt} ago />
      </td>
      <td className="hidden px-3 py-2.5 sm:table-cell">{badge}</td>
      <td className="hidden px-3 py-2.5 text-right sm:table-cell">{toggle}</td>
    </tr>
  );
}
