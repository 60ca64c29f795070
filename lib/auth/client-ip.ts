/** Set by server.ts from the socket (or X-Forwarded-For behind a trusted proxy); a client's own copy is replaced. */
export const CLIENT_IP_HEADER = "x-parley-client-ip";
