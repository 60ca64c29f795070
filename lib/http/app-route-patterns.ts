import { readdirSync, statSync } from "node:fs";
import { join } from "node:path";

// The URL patterns of the app directory (routes and pages), so that the server can tell which path parameter a
// malformed segment of a request would have filled, before any route sees the request.

export type PatternSegment = { literal: string } | { param: string; rest: boolean };
export type RoutePattern = PatternSegment[];

const ROUTE_FILE = /^(route|page)\.(ts|tsx|js|jsx)$/;
const PARAM = /^\[\[?(\.\.\.)?([^\]]+)\]\]?$/;

/** Every route.ts and page.tsx under `appDir`: route groups `(x)` left out, `[x]` and `[...x]` as parameters. */
export function appRoutePatterns(appDir: string): RoutePattern[] {
  const found: RoutePattern[] = [];
  const walk = (dir: string, pattern: RoutePattern) => {
    let names: string[];
    try {
      names = readdirSync(dir);
    } catch {
      return;
    }
    for (const name of names) {
      const full = join(dir, name);
      if (statSync(full).isDirectory()) {
        // Private folders and parallel-route slots add nothing to the URL that can be matched here.
        if (name.startsWith("_") || name.startsWith("@")) continue;
        if (/^\(.*\)$/.test(name)) walk(full, pattern);
        else {
          const param = PARAM.exec(name);
          walk(full, [...pattern, param ? { param: param[2]!, rest: Boolean(param[1]) } : { literal: name }]);
        }
      } else if (ROUTE_FILE.test(name)) found.push(pattern);
    }
  };
  walk(appDir, []);
  return found;
}

/**
 * The segments of `segments` (decoded; null where a segment cannot be decoded) each pattern segment takes, or null
 * when the pattern does not match. A literal never matches a null segment.
 */
function match(pattern: RoutePattern, segments: (string | null)[]): PatternSegment[] | null {
  const taken: PatternSegment[] = [];
  for (let i = 0; i < pattern.length; i++) {
    const part = pattern[i]!;
    if ("literal" in part) {
      if (segments[i] !== part.literal) return null;
      taken.push(part);
    } else if (part.rest) {
      if (i !== pattern.length - 1 || segments.length <= i) return null;
      while (taken.length < segments.length) taken.push(part);
      return taken;
    } else {
      if (i >= segments.length || segments[i] === "") return null;
      taken.push(part);
    }
  }
  return taken.length === segments.length ? taken : null;
}

/**
 * The name of the path parameter that `segments[index]` fills in the most specific route matching the path (the
 * one with the most literal segments), or null when it falls on a literal, a catch-all or no route at all.
 */
export function parameterAt(patterns: RoutePattern[], segments: (string | null)[], index: number): string | null {
  let best: { score: number; taken: PatternSegment[] } | null = null;
  for (const pattern of patterns) {
    const taken = match(pattern, segments);
    if (!taken) continue;
    // More literal segments win; between equals, a parameter wins over a catch-all (as Next.js routes them).
    const literals = pattern.filter((part) => "literal" in part).length;
    const catchAll = pattern.some((part) => "rest" in part && part.rest) ? 1 : 0;
    const score = literals * 2 - catchAll;
    if (!best || score > best.score) best = { score, taken };
  }
  const part = best?.taken[index];
  return part && "param" in part && !part.rest ? part.param : null;
}
