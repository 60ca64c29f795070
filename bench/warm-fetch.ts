import { createServer } from "node:http";

/**
 * Makes this process's first `fetch` (Node loads its HTTP client on first use: 20–60 ms here) against a throwaway
 * local server, so that a benchmark's "first call" times the server it measures, not the client's start-up.
 */
export async function warmFetch(): Promise<void> {
  const server = createServer((_req, res) => res.end("{}"));
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  await (await fetch(`http://127.0.0.1:${port}/`)).text();
  await new Promise((resolve) => server.close(resolve));
}
