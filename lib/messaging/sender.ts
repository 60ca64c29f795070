import { ApiError } from "../api/api-error";

// Who sends: an API key of the account (POST /v3/messages), or a portal user replying in a conversation, as
// itself. Only the account matters to the send; the rest says who it was.
export type Sender =
  { kind: "apiKey"; accountId: string; apiKeyId: string } | { kind: "user"; accountId: string; userId: string };

/** The request's accountId must be the sender's (403 Forbidden otherwise, as for any account-scoped request). */
export function assertSenderAccount(sender: Sender, accountId: string): void {
  if (sender.accountId !== accountId) throw new ApiError("Forbidden");
}
