import { z } from "zod";

// The Profile page's two-factor requests, as its forms and the admin API both check them (no server imports).

export const twoFactorCodeInput = z
  .object({
    code: z
      .string({ error: "enter the 6-digit code from your authenticator app" })
      .trim()
      .min(1, "enter the 6-digit code from your authenticator app")
      .max(100, "at most 100 characters"),
  })
  .strict();
export type TwoFactorCodeInput = z.infer<typeof twoFactorCodeInput>;
