import type { CurlExample } from "./endpoint-section";

// Hand-written curl examples for each operation. $PARLEY_KEY, $ACCOUNT_ID and $MESSAGE_ID are shell variables the
// reader sets; the numbers are valid E.164 numbers (a 555-01XX number is fictional but valid).

export function sendExamples(base: string): CurlExample[] {
  return [
    {
      title: "Send one SMS (apikey header)",
      code: `curl -sS -X POST "${base}/v3/messages" \\
  -H "apikey: $PARLEY_KEY" \\
  -H "Content-Type: application/json" \\
  -H "Idempotency-Key: order42-shipped" \\
  --data @- <<EOF
{
  "accountId": "$ACCOUNT_ID",
  "from": "14155550100",
  "to": "12125550123",
  "body": "Your order 42 has shipped.",
  "referenceId": "order42"
}
EOF`,
    },
    {
      title: "Send an MMS to a group (HTTP Basic: accountId as user, key as password)",
      code: `curl -sS -X POST "${base}/v3/messages" \\
  -u "$ACCOUNT_ID:$PARLEY_KEY" \\
  -H "Content-Type: application/json" \\
  --data @- <<EOF
{
  "accountId": "$ACCOUNT_ID",
  "from": "+14155550100",
  "toArray": ["12125550123", "+13125550142"],
  "body": "Tonight's menu",
  "media": ["https://example.com/menu.jpg"],
  "bulk": false
}
EOF`,
    },
  ];
}

export function listExamples(base: string): CurlExample[] {
  return [
    {
      title: "Outbound messages of one day, 20 a page, oldest first",
      code: `curl -sS -G "${base}/v3/messages" \\
  -H "apikey: $PARLEY_KEY" \\
  --data-urlencode "accountId=$ACCOUNT_ID" \\
  --data-urlencode "direction=outbound" \\
  --data-urlencode "timestampBegin=2026-11-21 00:00:00.000" \\
  --data-urlencode "timestampEnd=2026-11-22" \\
  --data-urlencode "count=20" \\
  --data-urlencode "sortDir=asc"`,
    },
    {
      title: "Messages to one number (--data-urlencode sends '+' as %2B)",
      code: `curl -sS -G "${base}/v3/messages" \\
  -H "apikey: $PARLEY_KEY" \\
  --data-urlencode "accountId=$ACCOUNT_ID" \\
  --data-urlencode "to=+12125550123"`,
    },
  ];
}

export function sdrExamples(base: string): CurlExample[] {
  return [
    {
      title: "Status records of one message",
      code: `curl -sS "${base}/v3/sdrs/$ACCOUNT_ID/$MESSAGE_ID" \\
  -H "apikey: $PARLEY_KEY"`,
    },
  ];
}

export function notAllowedExamples(base: string, method: "PUT" | "DELETE"): CurlExample[] {
  return [{ title: `Always 400 ResourceNotAllowed`, code: `curl -sS -X ${method} "${base}/v3/messages"` }];
}

export function numbersListExamples(base: string): CurlExample[] {
  return [
    {
      title: "The account's numbers, 20 a page",
      code: `curl -sS -G "${base}/v3/numbers" \\
  -H "apikey: $PARLEY_KEY" \\
  --data-urlencode "accountId=$ACCOUNT_ID" \\
  --data-urlencode "count=20"`,
    },
  ];
}

export function numbersProvisionExamples(base: string): CurlExample[] {
  return [
    {
      title: "Provision a number with a label",
      code: `curl -sS -X POST "${base}/v3/numbers" \\
  -H "apikey: $PARLEY_KEY" \\
  -H "Content-Type: application/json" \\
  --data @- <<EOF
{
  "accountId": "$ACCOUNT_ID",
  "number": "+14155550100",
  "label": "Support line"
}
EOF`,
    },
  ];
}

export function numbersReleaseExamples(base: string): CurlExample[] {
  return [
    {
      title: "Release a number",
      code: `curl -sS -X DELETE "${base}/v3/numbers/14155550100?accountId=$ACCOUNT_ID" \\
  -H "apikey: $PARLEY_KEY"`,
    },
  ];
}

export function mediaUploadExamples(base: string): CurlExample[] {
  return [
    {
      title: "Upload a picture, then send it as an MMS",
      code: `url=$(curl -sS -X POST "${base}/v3/media?accountId=$ACCOUNT_ID" \\
  -H "apikey: $PARLEY_KEY" \\
  -F file=@photo.jpg | jq -r .data.url)
curl -sS -X POST "${base}/v3/messages" \\
  -H "apikey: $PARLEY_KEY" \\
  -H "Content-Type: application/json" \\
  --data "{\\"accountId\\": \\"$ACCOUNT_ID\\", \\"from\\": \\"14155550100\\", \\"to\\": \\"12125550123\\", \\"media\\": [\\"$url\\"]}"`,
    },
  ];
}
