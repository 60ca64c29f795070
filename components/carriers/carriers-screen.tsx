"use client";

import { useState } from "react";
import { useCarriers, useRemoveCarrier } from "@/components/data/use-carriers";
import { failureText } from "@/components/ui/api-client";
import { Button } from "@/components/ui/button";
import { ConfirmDialog } from "@/components/ui/confirm-dialog";
import { EmptyState } from "@/components/ui/empty-state";
import { failureReason } from "@/components/ui/field-errors";
import { Notice } from "@/components/ui/notice";
import { Panel } from "@/components/ui/page-header";
import type { ConnectionView } from "@/lib/carriers/connections/manage-connections";
import { ConnectionCard } from "./connection-card";
import { ConnectionForm } from "./connection-form";

// How often the list (and so each connection's health, as the worker records it) is read again.
const REFRESH_MS = 10_000;

type Editing = { kind: "add" } | { kind: "edit"; id: string } | null;

/** The Carriers page: the account's connections, one form open at a time (add or edit), removal behind a question. */
export function CarriersScreen({ initial, defaultCarrier }: { initial: ConnectionView[]; defaultCarrier: string }) {
  const list = useCarriers(initial, REFRESH_MS);
  const [editing, setEditing] = useState<Editing>(null);
  const [removing, setRemoving] = useState<ConnectionView | null>(null);
  const [notice, setNotice] = useState<string | null>(null);
  const remove = useRemoveCarrier({
    onSuccess: (_data, connection) => {
      setRemoving(null);
      setNotice(`${connection.name} is removed.`);
    },
  });
  const connections = list.data ?? [];
  const now = Date.now();
  const editedConnection = editing?.kind === "edit" ? connections.find((c) => c.id === editing.id) : undefined;

  function saved(connection: ConnectionView, verb: string) {
    setEditing(null);
    setNotice(`${connection.name} is ${verb}.`);
  }

  return (
    <div className="space-y-6">
      {editing?.kind === "add" ? (
        <Panel
          title="Add carrier"
          description="A connection to a provider: the account's numbers routed to it send and receive through it."
        >
          <ConnectionForm onDone={(c) => saved(c, "added")} onCancel={() => setEditing(null)} />
        </Panel>
      ) : null}
      {editedConnection ? (
        <Panel title={`Edit ${editedConnection.name}`} description="Secrets left empty keep their saved values.">
          <ConnectionForm
            key={editedConnection.id}
            connection={editedConnection}
            onDone={(c) => saved(c, "saved")}
            onCancel={() => setEditing(null)}
          />
        </Panel>
      ) : null}

      <Panel
        title="Carrier connections"
        description={`Numbers not routed to one of these use the deployment's default connection (${defaultCarrier}).`}
        actions={
          editing?.kind === "add" ? null : (
            <Button
              onClick={() => {
                setNotice(null);
                setEditing({ kind: "add" });
              }}
            >
              Add carrier
            </Button>
          )
        }
        className="[&>div:last-child]:p-0"
      >
        {notice ? (
          <Notice tone="success" className="m-5">
            {notice}
          </Notice>
        ) : null}
        {list.error ? (
          <Notice tone="error" className="m-5">
            The connections could not be loaded: {failureText(list.error)}
          </Notice>
        ) : null}
        {connections.length === 0 ? (
          <div className="p-5">
            <EmptyState title="No carrier connections yet">
              Every number of the account uses the deployment&apos;s default connection. Add one to send through your
              own Twilio, Telnyx, Bandwidth or Vonage account, or your own SMPP link, then route numbers to it on the
              Numbers page.
            </EmptyState>
          </div>
        ) : (
          <ul className="divide-y divide-slate-100">
            {connections.map((connection) => (
              <li key={connection.id}>
                <ConnectionCard
                  connection={connection}
                  now={now}
                  onEdit={() => {
                    setNotice(null);
                    setEditing({ kind: "edit", id: connection.id });
                  }}
                  onRemove={() => {
                    remove.reset();
                    setNotice(null);
                    setRemoving(connection);
                  }}
                />
              </li>
            ))}
          </ul>
        )}
      </Panel>

      <ConfirmDialog
        open={removing !== null}
        title={removing ? `Remove ${removing.name}?` : "Remove"}
        confirmLabel={remove.isPending ? "Removing…" : "Remove"}
        busy={remove.isPending}
        onCancel={() => setRemoving(null)}
        onConfirm={() => removing && remove.mutate(removing)}
      >
        {removing ? (
          <div className="space-y-2">
            <p>
              Its settings and credentials are deleted. Messages already sent through it keep their history; the
              provider&apos;s callbacks to its addresses are refused from then on.
            </p>
            {remove.error ? <Notice tone="error">{failureReason(remove.error)}</Notice> : null}
          </div>
        ) : null}
      </ConfirmDialog>
    </div>
  );
}
