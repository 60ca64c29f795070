import js from "@eslint/js";
import tseslint from "typescript-eslint";

// A string or template that reads as an SQL statement, or a raw Prisma query.
const SQL =
  "/\\b(SELECT\\s|INSERT\\s+INTO|UPDATE\\s+\\W?\\w+\\W?\\s+SET|DELETE\\s+FROM|CREATE\\s+(UNIQUE\\s+)?(TABLE|INDEX)|ALTER\\s+TABLE|PRAGMA\\s)/";
const SQL_OUTSIDE_QUERY_MODULES = [
  { selector: `TemplateElement[value.raw=${SQL}]`, message: "SQL belongs in a query module (*-queries.ts)." },
  { selector: `Literal[value=${SQL}]`, message: "SQL belongs in a query module (*-queries.ts)." },
  {
    selector: "MemberExpression[property.name=/^\\$(queryRaw|executeRaw)(Unsafe)?$/]",
    message: "Raw queries belong in a query module (*-queries.ts).",
  },
];
const SQL_HOMES = ["lib/**/*-queries.ts", "lib/db/**/*.ts"];

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
    rules: {
      "no-restricted-imports": ["error", { patterns: ["next", "next/*"] }],
      // A file that grows past this is doing more than one job: split it by job.
      "max-lines": ["error", { max: 400 }],
      // SQL lives in query modules only (see docs/ARCHITECTURE.md, "Into the database").
      "no-restricted-syntax": ["error", ...SQL_OUTSIDE_QUERY_MODULES],
    },
  },
  {
    // The query modules, and lib/db: the SQL of its own machinery (pragmas, transactions, migrations, row builders,
    // the group commit).
    files: SQL_HOMES,
    rules: { "no-restricted-syntax": "off" },
  },
);
