import type { Metadata } from "next";
import { buildOpenApiDocument } from "@/lib/api/openapi";
import { errorCodeDocs } from "@/lib/api/openapi/errors";
import { SDR_STATUSES } from "@/lib/messaging/get-sdrs";
import { SEND_REJECT_REASONS } from "@/lib/messaging/message-serializers";
import { publicUrl } from "@/lib/env";
import { CodeBlock, JsonBlock } from "@/components/docs/code-block";
import {
  listExamples,
  notAllowedExamples,
  numbersListExamples,
  numbersProvisionExamples,
  numbersReleaseExamples,
  sdrExamples,
  sendExamples,
  mediaUploadExamples,
} from "@/components/docs/curl-examples";
import { EndpointSection } from "@/components/docs/endpoint-section";
import { ErrorCodeList } from "@/components/docs/error-code-list";
import { errorExamples, operation, responseExample } from "@/components/docs/openapi-model";
import { InlineText } from "@/components/docs/rich-text";
import { SchemaSection } from "@/components/docs/schema-section";
import { Section, SubHeading } from "@/components/docs/section";
import { Toc } from "@/components/docs/toc";

// GET /docs: the v3 API reference, rendered from the OpenAPI document (/v3/openapi.json) plus the prose below.
// Rendered per request: the base URL in the examples is the running server's PUBLIC_URL, not the build machine's.
export const dynamic = "force-dynamic";

export const metadata: Metadata = {
  title: "Parley API v3 reference",
  description:
    "Send SMS/MMS, list messages, read session detail records and manage telephone numbers over the Parley v3 REST API.",
};

const TOC = [
  { href: "#overview", label: "Overview" },
  { href: "#authentication", label: "Authentication" },
  { href: "#telephone-numbers", label: "Telephone numbers" },
  { href: "#timestamps", label: "Timestamps" },
  {
    href: "#endpoints",
    label: "Endpoints",
    children: [
      { href: "#send-messages", label: "POST /messages" },
      { href: "#list-messages", label: "GET /messages" },
      { href: "#get-sdrs", label: "GET /sdrs/{a}/{m}" },
      { href: "#list-numbers", label: "GET /numbers" },
      { href: "#provision-number", label: "POST /numbers" },
      { href: "#release-number", label: "DELETE /numbers/{n}" },
      { href: "#put-messages", label: "PUT /messages" },
      { href: "#delete-messages", label: "DELETE /messages" },
    ],
  },
  { href: "#sdr-statuses", label: "SDR statuses" },
  { href: "#errors", label: "Errors" },
];

function Table({ head, rows }: { head: string[]; rows: string[][] }) {
  return (
    <div tabIndex={0} className="my-4 overflow-x-auto rounded-lg border border-slate-200 bg-white">
      <table className="w-full border-collapse text-left text-sm">
        <thead className="bg-slate-50 text-xs uppercase tracking-wide text-slate-500">
          <tr>
            {head.map((h) => (
              <th key={h} className="px-4 py-2 font-medium">
                {h}
              </th>
            ))}
          </tr>
        </thead>
        <tbody className="divide-y divide-slate-100 align-top">
          {rows.map((row) => (
            <tr key={row.join("|")}>
              {row.map((cell, i) => (
                <td
                  key={i}
                  className={`px-4 py-2 ${i === 0 ? "whitespace-nowrap font-medium text-slate-900" : "text-slate-700"}`}
                >
                  <InlineText text={cell} />
                </td>
              ))}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

export default function DocsPage() {
  const doc = buildOpenApiDocument();
  const base = publicUrl();
  const errors = errorCodeDocs();
  const examples = errorExamples(doc);
  const apiBase = `${base}/v3`;

  return (
    <div className="mx-auto flex max-w-7xl gap-10 px-4 py-10 sm:px-6 lg:px-8">
      <aside className="hidden w-56 shrink-0 lg:block">
        <div className="sticky top-6">
          <Toc entries={TOC} />
        </div>
      </aside>

      <main className="min-w-0 flex-1 space-y-10 pb-24">
        <header>
          <p className="text-sm font-medium text-indigo-700">Parley · API reference</p>
          <h1 className="mt-1 text-3xl font-bold tracking-tight text-slate-900">
            {doc.info.title} {doc.info.version}
          </h1>
          <p className="mt-3 max-w-3xl text-slate-600">
            Send SMS and MMS, list sent and received messages, follow each message through its session detail records,
            and provision and release the account&apos;s telephone numbers. JSON over HTTP. Base URL:{" "}
            <code className="rounded bg-slate-100 px-1.5 py-0.5 font-mono text-sm">{apiBase}</code>
          </p>
          <p className="mt-3 text-sm">
            Machine-readable description:{" "}
            <a href="/v3/openapi.json" className="font-mono text-indigo-700 underline underline-offset-2">
              /v3/openapi.json
            </a>{" "}
            (OpenAPI {doc.openapi}), for code generators and API clients.
          </p>
        </header>

        <Section id="overview" title="Overview">
          <div className="space-y-3 leading-relaxed text-slate-700">
            <p>
              Every path is under <code className="font-mono">/v3</code>. Requests with a body send JSON. Every response
              is JSON in the same envelope, and its HTTP status always equals{" "}
              <code className="font-mono">statusCode</code> (a number):
            </p>
          </div>
          <Table
            head={["Field", "Meaning"]}
            rows={[
              [
                "status",
                "The alpha code: `MessageCreateSuccessful`, `QueryCompletedSuccessfully`, `UpdateSuccessful` (a number provisioned or released), or an [error code](#errors).",
              ],
              ["statusCode", "The numeric code, equal to the HTTP status (200, 400, 401, 403, 404, 409, 500)."],
              ["statusMessage", "The code's fixed text."],
              [
                "statusUri",
                'On an error, a link to the code\'s entry on this page (`/docs#error-<Code>`); `""` on success.',
              ],
              ["data", 'The result, where there is one. `data.apiVersion` is always `"v3"`.'],
            ]}
          />
          <p className="leading-relaxed text-slate-700">
            Every response carries an <code className="font-mono">x-request-id</code> header; the server logs the same
            id, so quote it when reporting a problem. A 4xx answer to a send means nothing was sent.
          </p>
        </Section>

        <Section id="authentication" title="Authentication">
          <div className="space-y-3 leading-relaxed text-slate-700">
            <p>
              Every call needs the credentials of one account, in either form (only PUT/DELETE, unknown paths and
              /v3/openapi.json answer without):
            </p>
          </div>
          <Table
            head={["Scheme", "How to send it"]}
            rows={[
              ["apikey header", "`apikey: pk_…` with an API key of the account."],
              [
                "HTTP Basic",
                'Username: the account\'s UUID (`accountId`). Password: an API key of that account. `curl -u "$ACCOUNT_ID:$PARLEY_KEY"`.',
              ],
            ]}
          />
          <ul className="list-disc space-y-2 pl-6 leading-relaxed text-slate-700">
            <li>
              <InlineText text="Either is enough. When both are sent, both must be valid for the same account." />
            </li>
            <li>
              <InlineText text="A key is `pk_` followed by 32 letters and digits. It belongs to one account, is shown once when created (in the portal, or `npm run parley -- key create --account <accountId>`), is stored only as a hash, and can be revoked or given an expiry." />
            </li>
            <li>
              <InlineText text="No credentials, or a wrong, revoked or expired key: **401** [Unauthorized](#error-Unauthorized). Credentials of one account used with another account's `accountId` (in the body, query or path): **403** [Forbidden](#error-Forbidden). Another account's messages are never revealed, not even whether they exist." />
            </li>
          </ul>
          <CodeBlock
            language="bash"
            title="Set these once for the examples on this page"
            code={`export PARLEY_KEY="pk_…"            # an API key of your account\nexport ACCOUNT_ID="…"               # your account's UUID\nexport MESSAGE_ID="…"               # a messageId from a send response`}
          />
        </Section>

        <Section id="telephone-numbers" title="Telephone numbers">
          <p className="leading-relaxed text-slate-700">
            <InlineText text="Telephone numbers (TNs) are E.164: country code and national number, up to 15 digits. Requests accept them with or without a leading `+`; responses use one form per place:" />
          </p>
          <Table
            head={["Where", "Form", "Example"]}
            rows={[
              [
                "Requests (`from`, `to`, `toArray`, listing filters)",
                "digits with country code, `+` optional",
                "`14155550100` or `+14155550100`",
              ],
              ["Send response (`messageInfo[].to`)", "`+` and digits", "`+14155550100`"],
              ["Listing results, webhook payloads", "digits, no `+`", "`14155550100`"],
            ]}
          />
          <ul className="list-disc space-y-2 pl-6 leading-relaxed text-slate-700">
            <li>
              <InlineText text="A number is valid when it is a valid E.164 number for its country (numbering-plan metadata, not just the digit count)." />
            </li>
            <li>
              <InlineText text="An invalid `from` fails the request: 400 [InvalidNumber](#error-InvalidNumber). A valid `from` that is not provisioned to your account is answered with 200, every entry `rejected`, reason `FromNotOwned`." />
            </li>
            <li>
              <InlineText text="An invalid destination rejects only its own entry (reason `InvalidDestination`); a number repeated in `toArray` is sent once (reason `DuplicateDestination` on the repeat)." />
            </li>
            <li>
              <InlineText text="In a query string a `+` must be encoded as `%2B` (curl's `--data-urlencode` does it); a bare `+` arrives as a space, which the listing also reads as `+`." />
            </li>
          </ul>
        </Section>

        <Section id="timestamps" title="Timestamps">
          <Table
            head={["Where", "Form", "Example"]}
            rows={[
              [
                "Send response `dateCreated`",
                "ISO 8601, milliseconds, numeric offset (always UTC)",
                "`2026-11-21T22:52:12.123+0000`",
              ],
              ["Listing and SDR `timestamp`", "`YYYY-MM-DD HH:mm:ss.SSS UTC`", "`2026-11-21 22:52:12.123 UTC`"],
              [
                "SDR `delta`",
                "seconds since the message was accepted: three decimals, at least two digits before the point",
                '`"00.000"`, `"07.250"`, `"125.004"`',
              ],
              [
                "Listing filters `timestampBegin` (inclusive), `timestampEnd` (exclusive)",
                "ISO 8601 date (midnight UTC) or date-time with `Z` or an offset; or `YYYY-MM-DD HH:mm:ss.SSS`, read as UTC",
                "`2026-11-21`, `2026-11-21T17:52:12-05:00`, `2026-11-21 22:52:12.123`",
              ],
            ]}
          />
        </Section>

        <Section id="endpoints" title="Endpoints">
          <EndpointSection doc={doc} method="post" path="/messages" id="send-messages" curl={sendExamples(base)}>
            <SubHeading>Response</SubHeading>
            <p className="mt-2 leading-relaxed text-slate-700">
              <InlineText text="200 `MessageCreateSuccessful`. `data` echoes the request's fields with the defaults applied, plus `apiVersion` and `messageInfo`, one entry per destination in request order:" />
            </p>
            <SchemaSection doc={doc} name="MessageInfo" title="messageInfo[] entry" />
            <Table head={["Reason", "Meaning"]} rows={SEND_REJECT_REASONS.map((r) => [`\`${r.reason}\``, r.meaning])} />
            <JsonBlock
              title="Response: accepted"
              value={responseExample(operation(doc, "post", "/messages"), "200", "accepted")}
            />
            <JsonBlock
              title="Response: from not owned by the account (still 200)"
              value={responseExample(operation(doc, "post", "/messages"), "200", "fromNotOwned")}
            />
          </EndpointSection>

          <EndpointSection doc={doc} method="get" path="/messages" id="list-messages" curl={listExamples(base)}>
            <SubHeading id="listing-parameters">Paging and sorting defaults</SubHeading>
            <Table
              head={["Parameter", "Default", "Allowed"]}
              rows={[
                ["`start`", "`0`", "0 or more"],
                ["`count`", "`50`", "1 to 1000"],
                [
                  "`sortBy`",
                  "`timestamp`",
                  "`timestamp`, `from`, `to`, `status`, `direction`, `messageType`, `numSegments`",
                ],
                ["`sortDir`", "`desc`", "`asc`, `desc`"],
              ]}
            />
            <SubHeading>Response</SubHeading>
            <p className="mt-2 leading-relaxed text-slate-700">
              <InlineText text="200 `QueryCompletedSuccessfully`. `data` echoes the parameters given, plus `total` (all matches), `position` (= `start`) and `results`. To page, add `count` to `start` until `start` reaches `total`." />
            </p>
            <SchemaSection doc={doc} name="ListingResult" title="results[] entry" />
            <JsonBlock title="Response" value={responseExample(operation(doc, "get", "/messages"), "200")} />
          </EndpointSection>

          <EndpointSection
            doc={doc}
            method="get"
            path="/sdrs/{accountId}/{messageId}"
            id="get-sdrs"
            curl={sdrExamples(base)}
          >
            <SubHeading>Response</SubHeading>
            <SchemaSection doc={doc} name="SdrRecord" title="results[] record" />
            <JsonBlock
              title="Response: a delivered one-segment SMS"
              value={responseExample(operation(doc, "get", "/sdrs/{accountId}/{messageId}"), "200")}
            />
            <JsonBlock
              title="Response: unknown message, or another account's (404)"
              value={responseExample(operation(doc, "get", "/sdrs/{accountId}/{messageId}"), "404")}
            />
          </EndpointSection>

          <EndpointSection doc={doc} method="get" path="/numbers" id="list-numbers" curl={numbersListExamples(base)}>
            <SubHeading>Response</SubHeading>
            <SchemaSection doc={doc} name="NumberResult" title="numbers[] entry" />
            <JsonBlock title="Response" value={responseExample(operation(doc, "get", "/numbers"), "200")} />
          </EndpointSection>

          <EndpointSection
            doc={doc}
            method="post"
            path="/numbers"
            id="provision-number"
            curl={numbersProvisionExamples(base)}
          >
            <SubHeading>Response</SubHeading>
            <p className="mt-2 leading-relaxed text-slate-700">
              <InlineText text="200 `UpdateSuccessful`. `data` is the number as listings show it, plus `accountId` and `created` (false when the account held the number already)." />
            </p>
            <JsonBlock
              title="Response: provisioned now"
              value={responseExample(operation(doc, "post", "/numbers"), "200", "created")}
            />
          </EndpointSection>

          <EndpointSection
            doc={doc}
            method="delete"
            path="/numbers/{number}"
            id="release-number"
            curl={numbersReleaseExamples(base)}
          >
            <SubHeading>Response</SubHeading>
            <JsonBlock title="Response" value={responseExample(operation(doc, "delete", "/numbers/{number}"), "200")} />
          </EndpointSection>

          <EndpointSection doc={doc} method="post" path="/media" id="upload-media" curl={mediaUploadExamples(base)}>
            <SubHeading>Response</SubHeading>
            <p className="mt-2 leading-relaxed text-slate-700">
              <InlineText text="200 `MediaUploadSuccessful`. Name `data.url` in a send's `media`; it is served at `/media/{mediaId}` without credentials." />
            </p>
            <JsonBlock title="Response" value={responseExample(operation(doc, "post", "/media"), "200")} />
          </EndpointSection>

          <EndpointSection
            doc={doc}
            method="put"
            path="/messages"
            id="put-messages"
            curl={notAllowedExamples(base, "PUT")}
          />
          <EndpointSection
            doc={doc}
            method="delete"
            path="/messages"
            id="delete-messages"
            curl={notAllowedExamples(base, "DELETE")}
          />
        </Section>

        <Section id="sdr-statuses" title="SDR statuses">
          <p className="leading-relaxed text-slate-700">
            <InlineText text="The `status` of session detail records, in lifecycle order. A delivered message shows `accepted`, `queued`, `sending`, `message_sent`, `wait_dlr`, `delivered`, `dlr_received`, `status_sent`; a message has exactly one outcome (delivered, undelivered, failed, expired or rejected). Multi-segment messages have one `message_sent` and one DLR pair per segment, with `segmentNumber`." />
          </p>
          <ol className="mt-4 space-y-2">
            {SDR_STATUSES.map((s, i) => (
              <li
                key={s.status}
                id={`sdr-${s.status}`}
                className="flex gap-3 rounded-md border border-slate-200 bg-white px-4 py-2 text-sm"
              >
                <span className="w-6 shrink-0 text-right font-mono text-slate-500">{i + 1}.</span>
                <code className="w-32 shrink-0 font-mono font-semibold text-slate-900">{s.status}</code>
                <span className="text-slate-700">
                  <InlineText text={s.meaning} />
                </span>
              </li>
            ))}
          </ol>
        </Section>

        <Section id="errors" title="Errors">
          <div className="space-y-3 leading-relaxed text-slate-700">
            <p>
              <InlineText text="An error is the same envelope with the code in `status`, the HTTP status in `statusCode`, the code's fixed text in `statusMessage`, and a link to its entry below in `statusUri`. Where there is more to say, `data.error_message` says exactly what is wrong and `data.field` names the field, parameter or header." />
            </p>
            <p>
              <InlineText text="A send is checked in this order, and the first failure is the answer: credentials (401) → JSON present (MissingJSON) → JSON parses (InvalidJSON) → body is an object (InvalidRequest) → `accountId` (MissingAccountId) → `from` (MissingFrom) → `to`/`toArray` (MissingTo) → `body`/`media` (MissingBody) → field types and limits (InvalidRequest) → account matches the credentials (403 Forbidden) → `from` valid (InvalidNumber) → `from` owned (200 with entries rejected)." />
            </p>
          </div>
          <Table
            head={["status", "statusCode", "statusMessage"]}
            rows={errors.map((e) => [
              `[${e.status}](#error-${e.status})`,
              String(e.statusCode),
              e.statusMessage.replace("{method}", "<METHOD>"),
            ])}
          />
          <ErrorCodeList codes={errors} examples={examples} />
        </Section>

        <footer className="border-t border-slate-200 pt-6 text-sm text-slate-500">
          Generated from the request schemas the server validates with. OpenAPI document:{" "}
          <a href="/v3/openapi.json" className="font-mono text-indigo-700 underline underline-offset-2">
            /v3/openapi.json
          </a>
          .
        </footer>
      </main>
    </div>
  );
}
