// A session's browser and system in words ("Chrome 131 on Linux") from its User-Agent, for the session lists. Only
// what people recognise: a header the rules do not know reads "Unknown browser", never the raw string. Pure, so the
// browser may use it too.

const browsers: [RegExp, string][] = [
  // Order matters: Edge, Opera and Samsung's browser also say "Chrome", and Chrome also says "Safari".
  [/Edg(?:e|A|iOS)?\/(\d+)/, "Edge"],
  [/(?:OPR|Opera)\/(\d+)/, "Opera"],
  [/SamsungBrowser\/(\d+)/, "Samsung Internet"],
  [/Firefox\/(\d+)|FxiOS\/(\d+)/, "Firefox"],
  [/HeadlessChrome\/(\d+)/, "Headless Chrome"],
  [/Chrom(?:e|ium)\/(\d+)|CriOS\/(\d+)/, "Chrome"],
  [/Version\/(\d+)[\d.]* (?:Mobile\/\S+ )?Safari\//, "Safari"],
  [/^curl\/(\d+)/, "curl"],
  [/^node|undici/i, "Node.js"],
];

const systems: [RegExp, string][] = [
  [/Windows NT/, "Windows"],
  [/iPhone|iPad|iPod/, "iOS"],
  [/Android/, "Android"],
  [/CrOS/, "ChromeOS"],
  [/Mac OS X|Macintosh/, "macOS"],
  [/Linux/, "Linux"],
];

export function describeUserAgent(userAgent: string): string {
  let browser = "Unknown browser";
  for (const [pattern, name] of browsers) {
    const match = pattern.exec(userAgent);
    if (!match) continue;
    const version = match.slice(1).find((v) => v !== undefined);
    browser = version ? `${name} ${version}` : name;
    break;
  }
  const system = systems.find(([pattern]) => pattern.test(userAgent))?.[1];
  return system ? `${browser} on ${system}` : browser;
}
