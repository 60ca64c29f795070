// Which way imports may point: run by `npm run lint`, explained in docs/ARCHITECTURE.md.
// Layers, top to bottom: server.ts / worker / app → components → lib/<domain> → lib/db, lib/env.ts, lib/log.ts
// → lib/process-singletons.ts (a leaf every layer may import).
// tests/ may import anything and are not cruised.

// Modules of lib/ that open the database or read the session cookie: the browser must never load them.
const SERVER_ONLY = [
  "^lib/db/",
  "^lib/auth/(active-user|api-keys|auth-options|end-sessions|list-sessions|portal-session|session-token|sign-in-throttle|start-session|two-factor-check|two-factor-enrolment|two-factor-sign-in)\\.ts$",
];

/** @type {import('dependency-cruiser').IConfiguration} */
export default {
  forbidden: [
    {
      name: "lib-not-above",
      comment: "lib/ is the domain: it knows nothing of the routes, the React components or Next.js.",
      severity: "error",
      from: { path: "^lib/" },
      to: {
        path: [
          "^app/",
          "^components/",
          "^server\\.ts$",
          "^worker/",
          "^node_modules/next/",
          "^node_modules/next-auth/react",
        ],
      },
    },
    {
      name: "lib-next-auth-server-only",
      comment:
        "next-auth is the portal's session: lib/auth builds its options and reads its JWT and server session " +
        "(auth-options.ts, session-token.ts, portal-session.ts). Nothing else in lib/ touches it.",
      severity: "error",
      from: { path: "^lib/", pathNot: "^lib/auth/(auth-options|session-token|portal-session)\\.ts$" },
      to: { path: "^node_modules/next-auth/" },
    },
    {
      name: "db-is-the-bottom",
      comment:
        "lib/db owns connections and statements; it calls no domain module and announces nothing live. " +
        "A domain that needs to run after a write registers itself from above. lib/process-singletons.ts, a leaf " +
        "that imports nothing, holds the process-wide singletons of every layer, lib/db's included.",
      severity: "error",
      from: { path: "^lib/db/" },
      to: {
        path: "^lib/",
        pathNot: ["^lib/db/", "^lib/env\\.ts$", "^lib/log\\.ts$", "^lib/process-singletons\\.ts$"],
      },
    },
    {
      name: "process-singletons-is-a-leaf",
      comment:
        "Every layer imports lib/process-singletons.ts, lib/db included: it may import nothing of the project itself.",
      severity: "error",
      from: { path: "^lib/process-singletons\\.ts$" },
      to: { path: "^(app|components|lib|worker)/|^server\\.ts$" },
    },
    {
      name: "no-circular",
      comment: "An import circle makes load order matter and the layers meaningless.",
      severity: "error",
      from: {},
      to: { circular: true },
    },
    {
      name: "components-not-server-only",
      comment:
        "components/ are rendered in the browser (or share code with what is): they may import the types of " +
        "server modules, never the modules themselves.",
      severity: "error",
      from: { path: "^components/" },
      to: { path: SERVER_ONLY, dependencyTypesNot: ["type-only"] },
    },
    {
      name: "components-no-node-builtins",
      comment: "Node's builtins do not exist in the browser.",
      severity: "error",
      from: { path: "^components/" },
      to: { dependencyTypes: ["core"], dependencyTypesNot: ["type-only"] },
    },
    {
      name: "not-to-unresolvable",
      comment: "An import that resolves to nothing is a typo or a missing package.",
      severity: "error",
      from: {},
      to: { couldNotResolve: true },
    },
  ],
  options: {
    doNotFollow: { path: "node_modules" },
    exclude: { path: ["^lib/db/generated/", "^node_modules/"] },
    // Keep `import type` visible so the rules above can tell it from a real import.
    tsPreCompilationDeps: true,
    tsConfig: { fileName: "tsconfig.json" },
    enhancedResolveOptions: {
      exportsFields: ["exports"],
      conditionNames: ["import", "require", "node", "default", "types"],
      extensions: [".ts", ".tsx", ".mts", ".mjs", ".js", ".cjs", ".d.ts", ".json"],
    },
    reporterOptions: { text: { highlightFocused: true } },
  },
};
