"use client";

import { useState } from "react";
import { useKeys, useRevokeKey } from "@/components/data/use-keys";
import { failureText } from "@/components/ui/api-client";
import { Badge, type BadgeTone } from "@/components/ui/badge";
import { Button } from "@/components/ui/button";
import { ConfirmDialog } from "@/components/ui/confirm-dialog";
import { DataTable, LoadFailure, type Column } from "@/components/ui/data-table";
import { EmptyState } from "@/components/ui/empty-state";
import { Notice } from "@/components/ui/notice";
import { Panel } from "@/components/ui/page-header";
import { Pager } from "@/components/ui/pager";
import { ShownOnce } from "@/components/ui/shown-once";
import { TimeText } from "@/components/ui/time-text";
import { CreateKeyForm } from "./create-key-form";
import { KEY_PAGE_SIZE, type ApiKeyListing, type CreatedKey, type KeyPage } from "./key-types";

const stateTone: Record<ApiKeyListing["state"], BadgeTone> = { active: "green", expired: "amber", revoked: "gray" };

/** The secret of a key just created: shown here once, kept in this component's state only, never cached. */
function CreatedKeyPanel({ created, onDone }: { created: CreatedKey; onDone: () => void }) {
  return (
    <ShownOnce
      label="New API key"
      title={<>Key &ldquo;{created.key.name}&rdquo; created</>}
      secret={created.secret}
      secretTestId="new-key-secret"
      copyLabel="Copy key"
      onDone={onDone}
      footer={
        <p className="mt-3 text-emerald-900">
          Send it in the <code className="font-mono">apikey</code> header of every API request. Parley keeps only a
          hash: if the key is lost, revoke it and create another.
        </p>
      }
    >
      <p className="mt-1 font-medium">Copy this key now. You will not see it again.</p>
    </ShownOnce>
  );
}

/** A key's expiry: a date alone when it is 00:00 UTC (as the form sets it), else the instant. */
function Expiry({ iso }: { iso: string | null }) {
  return <TimeText iso={iso} none="never" utcDay={iso?.endsWith("T00:00:00.000Z")} />;
}

function KeyRow({ apiKey, onRevoke }: { apiKey: ApiKeyListing; onRevoke: (key: ApiKeyListing) => void }) {
  return (
    <tr className="border-t border-slate-100 align-top">
      <td className="min-w-[9rem] px-3 py-2.5">
        <div className="font-medium text-slate-900">
          {apiKey.name || <span className="text-slate-500">(no name)</span>}
        </div>
        {/* What the narrow layout has no columns for. */}
        <div className="mt-0.5 font-mono text-xs text-slate-700 sm:hidden">{apiKey.hint}</div>
        <dl className="mt-1 flex flex-wrap gap-x-3 gap-y-0.5 text-xs text-slate-500 md:hidden">
          <div>
            <dt className="inline">Created </dt>
            <dd className="inline">
              <TimeText iso={apiKey.createdAt} day />
            </dd>
          </div>
          <div>
            <dt className="inline">Last used </dt>
            <dd className="inline">
              <TimeText iso={apiKey.lastUsedAt} ago />
            </dd>
          </div>
          <div>
            <dt className="inline">Expires </dt>
            <dd className="inline">
              <Expiry iso={apiKey.expiresAt} />
            </dd>
          </div>
        </dl>
      </td>
      <td className="hidden px-3 pt-3 pb-2.5 font-mono text-xs whitespace-nowrap text-slate-700 sm:table-cell">
        {apiKey.hint}
      </td>
      <td className="hidden px-3 py-2.5 text-slate-600 md:table-cell">
        <TimeText iso={apiKey.createdAt} />
      </td>
      <td className="hidden px-3 py-2.5 text-slate-600 md:table-cell">
        <TimeText iso={apiKey.lastUsedAt} ago />
      </td>
      <td className="hidden px-3 py-2.5 text-slate-600 md:table-cell">
        <Expiry iso={apiKey.expiresAt} />
      </td>
      <td className="px-3 py-2.5">
        <Badge tone={stateTone[apiKey.state]}>{apiKey.state}</Badge>
      </td>
      <td className="px-3 py-2.5 text-right">
        {apiKey.state !== "revoked" && (
          <Button variant="secondary" size="sm" onClick={() => onRevoke(apiKey)} aria-label={`Revoke ${apiKey.name}`}>
            Revoke
          </Button>
        )}
      </td>
    </tr>
  );
}

const keyColumns: Column[] = [
  { label: "Name" },
  { label: "Key", className: "hidden sm:table-cell" },
  { label: "Created", className: "hidden md:table-cell" },
  { label: "Last used", className: "hidden md:table-cell" },
  { label: "Expires", className: "hidden md:table-cell" },
  { label: "State" },
  { label: "Actions", srOnly: true },
];

export function KeysScreen({ initial }: { initial: KeyPage }) {
  const [start, setStart] = useState(0);
  const [created, setCreated] = useState<CreatedKey | null>(null);
  const [revoking, setRevoking] = useState<ApiKeyListing | null>(null);
  const [revoked, setRevoked] = useState<ApiKeyListing | null>(null);

  const query = { start, count: KEY_PAGE_SIZE };
  const list = useKeys(query, initial);
  const revoke = useRevokeKey({
    onSuccess: ({ key }) => {
      setRevoking(null);
      setRevoked(key);
    },
  });

  const page = list.data;
  return (
    <div className="space-y-6">
      <Panel title="Create key" description="A key lets a program call the API for this account.">
        <CreateKeyForm
          onCreated={(key) => {
            setRevoked(null);
            setCreated(key);
            setStart(0);
          }}
        />
      </Panel>

      {created && <CreatedKeyPanel created={created} onDone={() => setCreated(null)} />}

      <Panel
        title="Keys"
        description="Listed by their first and last characters; the secret itself is never shown again."
      >
        {revoked && (
          <Notice tone="success" className="mb-4">
            Key &ldquo;{revoked.name}&rdquo; ({revoked.hint}) is revoked. Requests with it are refused within a few
            seconds.
          </Notice>
        )}
        {list.isError && <LoadFailure what="keys" error={list.error} />}
        {page && page.total === 0 ? (
          <EmptyState title="No API keys yet">
            Create a key above, then send it in the <code className="font-mono">apikey</code> header of your API
            requests.
          </EmptyState>
        ) : page ? (
          <>
            <DataTable label="API keys" columns={keyColumns}>
              {page.keys.map((key) => (
                <KeyRow key={key.id} apiKey={key} onRevoke={setRevoking} />
              ))}
            </DataTable>
            <Pager start={start} count={KEY_PAGE_SIZE} total={page.total} onChange={setStart} label="keys" />
          </>
        ) : null}
      </Panel>

      <ConfirmDialog
        open={revoking !== null}
        title={`Revoke the key “${revoking?.name ?? ""}”?`}
        confirmLabel={revoke.isPending ? "Revoking…" : "Revoke key"}
        busy={revoke.isPending}
        onConfirm={() => revoking && revoke.mutate(revoking)}
        onCancel={() => {
          setRevoking(null);
          revoke.reset();
        }}
      >
        <p>
          Programs using <code className="font-mono">{revoking?.hint}</code> will be refused (401) within a few seconds.
          This cannot be undone.
        </p>
        {revoke.isError && (
          <Notice tone="error" className="mt-3">
            {failureText(revoke.error)}
          </Notice>
        )}
      </ConfirmDialog>
    </div>
  );
}
