// What a sign-in refused at the second factor answers (next-auth hands the message to the sign-in form as
// `error`). No server imports: the browser's sign-in form reads these.

/** The email and password were right; the user has two-factor on and gave no code. */
export const TWO_FACTOR_REQUIRED = "TwoFactorRequired";
/** The email and password were right; the code was wrong, used already, or not a code. */
export const TWO_FACTOR_WRONG_CODE = "TwoFactorWrongCode";
