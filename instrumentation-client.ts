import { config } from "zod";

// Runs in the browser before the app's own modules. Zod builds faster object parsers with `new Function` where
// eval is allowed, and finds out with a `new Function("")` it catches. The portal's Content-Security-Policy allows
// no eval, so the probe fails as it should, but the browser still reports it as a policy violation on every page
// that parses a socket event or a form. Jitless, zod never tries (its interpreted parsers are fast enough here).
config({ jitless: true });
