import type { ReactNode } from "react";
import { safeHttpUrl } from "@/lib/messaging/check-media-url";

// The only way a URL that came from outside (media from phones, carriers and API clients) becomes a link or an
// image in the portal: http(s) only, by the rule every entry point checks (lib/messaging/check-media-url.ts).
// Anything else is shown as text without an href, so a javascript: or data: URL stored before the rule existed
// stays harmless.

/**
 * A link that opens in a new tab, or the text alone when the URL is not a safe http(s) URL. `className` applies to
 * both (layout), `linkClassName` to the link only (underline, colour), so that the text does not look like a link.
 */
export function SafeLink({
  url,
  className = "",
  linkClassName = "",
  children,
}: {
  url: string;
  className?: string;
  linkClassName?: string;
  children?: ReactNode;
}) {
  const href = safeHttpUrl(url);
  if (href === null) {
    return (
      <span className={className} data-unsafe-url title="Not an http(s) address, so not a link">
        {children ?? url} <span className="text-[0.85em] opacity-75">(not a web link)</span>
      </span>
    );
  }
  return (
    <a href={href} target="_blank" rel="noopener noreferrer" className={`${className} ${linkClassName}`}>
      {children ?? url}
    </a>
  );
}

/** An image loaded from an http(s) URL; for any other URL, its text (as SafeLink shows it) instead of an image. */
export function SafeImage({ url, alt, className = "" }: { url: string; alt: string; className?: string }) {
  const src = safeHttpUrl(url);
  if (src === null) return <SafeLink url={url} className="break-all" />;
  return <img src={src} alt={alt} className={className} />;
}
