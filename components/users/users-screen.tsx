"use client";

import { useRouter } from "next/navigation";
import { Fragment, useState } from "react";
import { useChangeUser, useResetTwoFactor, useUsers, type UserChange } from "@/components/data/use-users";
import { useViewer } from "@/components/portal/portal-context";
import { ConfirmDialog } from "@/components/ui/confirm-dialog";
import { DataTable, LoadFailure, type Column } from "@/components/ui/data-table";
import { EmptyState } from "@/components/ui/empty-state";
import { failureReason } from "@/components/ui/field-errors";
import { Notice } from "@/components/ui/notice";
import { Panel } from "@/components/ui/page-header";
import { Pager } from "@/components/ui/pager";
import { ShownOnce } from "@/components/ui/shown-once";
import { AddUserForm } from "./add-user-form";
import { UserRow } from "./user-row";
import { UserSessionsRow } from "./user-sessions-row";
import { USER_PAGE_SIZE, type CreatedUser, type UserListing, type UserPage } from "./user-types";

/** The initial password of a user just added: shown here once, kept in this component's state only. */
function CreatedUserPanel({ created, onDone }: { created: CreatedUser; onDone: () => void }) {
  return (
    <ShownOnce
      label="New user's password"
      title={`${created.user.email} was added as ${created.user.role === "admin" ? "an admin" : "an agent"}`}
      secret={created.password}
      secretTestId="new-user-password"
      copyLabel="Copy password"
      onDone={onDone}
    >
      <p className="mt-1">
        Their initial password is below. Copy it now: you will not see it again. Give it to them over a channel you
        trust; they sign in at this portal with their email and this password.
      </p>
    </ShownOnce>
  );
}

type Change = UserChange;

function describeChange({ user, changes }: Change): string {
  if (changes.disabled === true) return `${user.email} is disabled and signed out.`;
  if (changes.disabled === false) return `${user.email} is enabled and can sign in again.`;
  if (changes.role) return `${user.email} is now ${changes.role === "admin" ? "an admin" : "an agent"}.`;
  return `${user.email} is saved.`;
}

const userColumns: Column[] = [
  { label: "User" },
  { label: "Role" },
  { label: "Last sign-in", className: "hidden md:table-cell" },
  { label: "State", className: "hidden sm:table-cell" },
  { label: "Actions", className: "hidden sm:table-cell", srOnly: true },
];

export function UsersScreen({ initial }: { initial: UserPage }) {
  const viewer = useViewer();
  const router = useRouter();
  const [start, setStart] = useState(0);
  const [created, setCreated] = useState<CreatedUser | null>(null);
  const [disabling, setDisabling] = useState<UserListing | null>(null);
  const [resetting, setResetting] = useState<UserListing | null>(null);
  const [outcome, setOutcome] = useState<{ tone: "success" | "error"; text: string } | null>(null);
  // Bumped when a change is refused, so the rows drop the choice the server did not take.
  const [revision, setRevision] = useState(0);

  const query = { start, count: USER_PAGE_SIZE };
  const list = useUsers(query, initial);
  const change = useChangeUser({
    onSuccess: (_, variables) => {
      setDisabling(null);
      setOutcome({ tone: "success", text: describeChange(variables) });
      // A viewer who gave up their own admin role has no business on this page from now on.
      if (variables.user.id === viewer.userId && variables.changes.role === "agent") router.refresh();
    },
    onError: (error, { user }) => {
      setDisabling(null);
      setRevision((n) => n + 1);
      const reason = failureReason(error);
      setOutcome({
        tone: "error",
        text: `Not changed: ${reason.includes(user.email) ? "" : `${user.email}: `}${reason}`,
      });
    },
  });

  // A lost phone: the user signs in with their password alone and sets two-factor up again.
  const resetTwoFactor = useResetTwoFactor({
    onSuccess: (_, user) => {
      setResetting(null);
      setOutcome({
        tone: "success",
        text: `${user.email}'s two-factor is reset: they sign in with their password and set it up again.`,
      });
    },
    onError: (error, user) => {
      setResetting(null);
      setOutcome({ tone: "error", text: `Not reset: ${user.email}: ${failureReason(error)}` });
    },
  });

  const page = list.data;
  return (
    <div className="space-y-6">
      <Panel
        title="Add user"
        description="Admins can do everything here; agents see Conversations and Messages. The server makes an initial password."
      >
        <AddUserForm
          onCreated={(user) => {
            setOutcome(null);
            setCreated(user);
          }}
        />
      </Panel>

      {created && <CreatedUserPanel created={created} onDone={() => setCreated(null)} />}

      <Panel
        title="Users"
        description="A disabled user cannot sign in, and is signed out at once. Under each user: where they are signed in."
      >
        {outcome && (
          <Notice tone={outcome.tone} className="mb-4">
            {outcome.text}
          </Notice>
        )}
        {list.isError && <LoadFailure what="users" error={list.error} />}
        {page && page.total === 0 ? (
          <EmptyState title="No users">Add a user above.</EmptyState>
        ) : page ? (
          <>
            <DataTable label="Users" columns={userColumns}>
              {page.users.map((user) => (
                <Fragment key={user.id}>
                  <UserRow
                    key={`${user.id}:${user.role}:${revision}`}
                    user={user}
                    isSelf={user.id === viewer.userId}
                    busy={
                      (change.isPending && change.variables?.user.id === user.id) ||
                      (resetTwoFactor.isPending && resetTwoFactor.variables?.id === user.id)
                    }
                    onRole={(role) => change.mutate({ user, changes: { role } })}
                    onDisable={() => setDisabling(user)}
                    onEnable={() => change.mutate({ user, changes: { disabled: false } })}
                    onResetTwoFactor={() => setResetting(user)}
                  />
                  <UserSessionsRow user={user} sessions={user.sessions} columns={userColumns.length} />
                </Fragment>
              ))}
            </DataTable>
            <Pager start={start} count={USER_PAGE_SIZE} total={page.total} onChange={setStart} label="users" />
          </>
        ) : null}
      </Panel>

      <ConfirmDialog
        open={disabling !== null}
        title={`Disable ${disabling?.email ?? ""}?`}
        confirmLabel={change.isPending ? "Disabling…" : "Disable user"}
        busy={change.isPending}
        onConfirm={() => disabling && change.mutate({ user: disabling, changes: { disabled: true } })}
        onCancel={() => setDisabling(null)}
      >
        They are signed out at once and cannot sign in until an admin enables them again. Their messages and the audit
        trail stay.
      </ConfirmDialog>

      <ConfirmDialog
        open={resetting !== null}
        title={`Reset two-factor of ${resetting?.email ?? ""}?`}
        confirmLabel={resetTwoFactor.isPending ? "Resetting…" : "Reset two-factor"}
        busy={resetTwoFactor.isPending}
        onConfirm={() => resetting && resetTwoFactor.mutate(resetting)}
        onCancel={() => setResetting(null)}
      >
        Their authenticator app and recovery codes stop working. They sign in with their password alone and set
        two-factor up again on their Profile page (at once, when the account requires it). Do this only once you are
        sure who is asking.
      </ConfirmDialog>
    </div>
  );
}
