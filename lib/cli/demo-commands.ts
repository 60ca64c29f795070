import { createDemo, describeDemo } from "../accounts/create-demo";
import { publicUrl } from "../env";
import type { Command } from "./command";
import { optionalString } from "./read-arguments";

// `parley demo`: a ready demo account, its credentials printed once.

export const demoCommands: Command[] = [
  {
    name: "demo",
    synopsis: "[--name <name>] [--email <email>]",
    summary: "Create a ready demo account: an admin user, two numbers and an API key; prints the credentials once.",
    options: { name: { type: "string" }, email: { type: "string" } },
    prepare({ values }) {
      const name = optionalString(values, "name")?.trim() || undefined;
      const email = optionalString(values, "email")?.trim() || undefined;
      return async () => {
        const demo = await createDemo({ name, email });
        const base = publicUrl();
        return {
          json: {
            portalUrl: `${base}/`,
            email: demo.email,
            password: demo.password,
            accountId: demo.accountId,
            accountName: demo.accountName,
            apiKey: demo.apiKey,
            numbers: demo.numbers,
          },
          text: [
            `A demo account "${demo.accountName}" was created.`,
            "",
            ...describeDemo(demo, base).map((l) => (l ? `  ${l}` : l)),
          ].join("\n"),
          warning: `The password and the API key are shown this once and cannot be shown again: store them now.`,
        };
      };
    },
  },
];
