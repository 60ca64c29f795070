// How the Activity panel words the audit trail's actions and actors.

const actionLabels: Record<string, string> = {
  "signin.succeeded": "Signed in",
  "signin.failed": "Sign-in failed",
  "signin.locked": "Sign-in locked",
  "key.created": "API key created",
  "key.revoked": "API key revoked",
  "user.created": "User added",
  "user.updated": "User changed",
  "number.provisioned": "Number added",
  "number.released": "Number released",
  "number.updated": "Number changed",
  "webhook.updated": "Webhook changed",
  "webhook.removed": "Webhook removed",
  "webhook.secret_rotated": "Webhook secret rotated",
  "webhook.secret_revealed": "Webhook secret revealed",
  "request.cross_site_refused": "Cross-site request refused",
  "settings.updated": "Settings changed",
  "media.dropped": "Unsafe media link dropped",
  "twofactor.enabled": "Two-factor turned on",
  "twofactor.disabled": "Two-factor turned off",
  "twofactor.reset": "Two-factor reset",
  "twofactor.recovery_codes_regenerated": "New recovery codes",
  signout: "Signed out",
  "session.revoked": "Session revoked",
  "user.signed_out_everywhere": "Signed out everywhere",
  "password.changed": "Password changed",
  "message.cancelled": "Message cancelled",
  "campaign.created": "Campaign created",
  "campaign.paused": "Campaign paused",
  "campaign.resumed": "Campaign resumed",
  "campaign.cancelled": "Campaign cancelled",
};

export function actionLabel(action: string): string {
  return actionLabels[action] ?? action;
}

/** "user:ana@example.com" → the email; "apiKey:<id>" → "API key <id>"; "cli" → the operator's CLI. */
export function actorText(actor: string): string {
  if (actor === "") return "(not signed in)";
  if (actor === "cli") return "Operator (CLI)";
  if (actor === "carrier") return "Carrier (inbound message)";
  if (actor.startsWith("user:")) return actor.slice(5);
  if (actor.startsWith("apiKey:")) return `API key ${actor.slice(7, 15)}…`;
  return actor;
}

export function actionTone(action: string): "red" | "amber" | "green" | "gray" | "blue" {
  if (action === "signin.failed" || action === "signin.locked" || action === "request.cross_site_refused") return "red";
  if (action.endsWith(".revoked") || action.endsWith(".removed") || action.endsWith(".released")) return "amber";
  if (action === "twofactor.disabled" || action === "twofactor.reset") return "amber";
  if (action === "twofactor.enabled") return "green";
  if (action === "signin.succeeded") return "green";
  if (action.endsWith(".created") || action.endsWith(".provisioned")) return "blue";
  return "gray";
}
