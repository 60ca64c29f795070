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
