import js from "@eslint/js";
import tseslint from "typescript-eslint";

export default tseslint.config(
  { ignores: ["node_modules", ".next", "lib/db/generated", "prisma/postgresql", "data", "next-env.d.ts"] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    // Scripts and benchmarks run on Node: its globals are there.
    files: ["**/*.mjs", "**/*.js"],
    languageOptions: {
      globals: {
        process: "readonly",
        console: "readonly",
        Buffer: "readonly",
        URL: "readonly",
        SharedArrayBuffer: "readonly",
        Int32Array: "readonly",
        Atomics: "readonly",
      },
    },
  },
  {
    rules: {
      "@typescript-eslint/no-unused-vars": ["error", { argsIgnorePattern: "^_", varsIgnorePattern: "^_" }],
    },
  },
  {
    // lib/ is the domain: it never depends on Next.js.
    files: ["lib/**/*.ts"],
    rules: { "no-restricted-imports": ["error", { patterns: ["next", "next/*"] }] },
  },
);
