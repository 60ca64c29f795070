import { z } from "zod";

// Portal users as the /users page's forms and the admin API both check them (no server imports: the browser runs
// these very schemas).

export const USER_ROLES = ["admin", "agent"] as const;
export type UserRole = (typeof USER_ROLES)[number];

const role = z.enum(USER_ROLES, { error: "must be admin or agent" });
const name = z.string({ error: "must be text" }).trim().max(100, "at most 100 characters");

export const newUserInput = z
  .object({
    email: z
      .string({ error: "is required" })
      .trim()
      .toLowerCase()
      .pipe(z.email({ error: "must be an email address such as ana@example.com" }).max(200)),
    name: name.optional(),
    role,
  })
  .strict();
export type NewUserInput = z.infer<typeof newUserInput>;

export const userChangeInput = z
  .object({
    role: role.optional(),
    disabled: z.boolean({ error: "must be true or false" }).optional(),
    name: name.optional(),
  })
  .strict()
  .refine((v) => v.role !== undefined || v.disabled !== undefined || v.name !== undefined, {
    message: "give at least one of role, disabled, name",
  });
export type UserChangeInput = z.infer<typeof userChangeInput>;

// A password a user chooses on their Profile page: long rather than complex (NIST SP 800-63B); at most as long as
// the sign-in form accepts.
export const PASSWORD_MIN_LENGTH = 12;
export const PASSWORD_MAX_LENGTH = 200;

export const passwordChangeInput = z
  .object({
    currentPassword: z.string({ error: "is required" }).min(1, "is required").max(PASSWORD_MAX_LENGTH),
    newPassword: z
      .string({ error: "is required" })
      .min(PASSWORD_MIN_LENGTH, `needs at least ${PASSWORD_MIN_LENGTH} characters`)
      .max(PASSWORD_MAX_LENGTH, `at most ${PASSWORD_MAX_LENGTH} characters`),
  })
  .strict()
  .refine((v) => v.newPassword !== v.currentPassword, {
    message: "must differ from the current password",
    path: ["newPassword"],
  });
export type PasswordChangeInput = z.infer<typeof passwordChangeInput>;
