// @ts-check
/** @type {import('next').NextConfig} */
const nextConfig = {
  reactStrictMode: true,
  poweredByHeader: false,
  // forbidden() answers an agent on an admin page with the 403 page (app/forbidden.tsx).
  experimental: { authInterrupts: true },
  // Native and server-only packages are loaded by Node at run time, not bundled.
  serverExternalPackages: [
    "better-sqlite3",
    "@prisma/adapter-better-sqlite3",
    "@prisma/adapter-pg",
    "@prisma/client",
    "pg",
    "pino",
    "libphonenumber-js",
    "redis",
    "socket.io",
    "@socket.io/redis-adapter",
    "@socket.io/redis-emitter",
    "@socket.io/postgres-adapter",
    "@socket.io/postgres-emitter",
    "prom-client",
  ],
  // The build checks the app's code; tests and benchmarks are checked by `npm run typecheck`.
  typescript: { ignoreBuildErrors: false, tsconfigPath: "tsconfig.build.json" },
};

export default nextConfig;
