import { generate } from "otplib";

// The codes an authenticator app shows, for tests of two-factor sign-in.

/** Waits out the last seconds of a 30-second step, so that codes made now are still in the window when checked. */
export async function freshStep(): Promise<void> {
  const into = (Date.now() / 1000) % 30;
  if (into > 24) await new Promise((resolve) => setTimeout(resolve, (30.5 - into) * 1000));
}

/** The code an authenticator app shows `steps` periods from now. */
export const codeOf = (secret: string, steps = 0) =>
  generate({ secret, epoch: Math.floor(Date.now() / 1000) + steps * 30 });
