import js from "@eslint/js";
import tseslint from "typescript-eslint";

export default tseslint.config(
  { ignores: ["node_modules", ".next", "lib/db/generated", "prisma/postgresql", "data", "next-env.d.ts"] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
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
