// A strict reader of the Prometheus text exposition format (version 0.0.4), as a scraper reads it: every line is a
// HELP, a TYPE or a sample; anything else is an error. Enough of the format for tests to assert on what a scrape
// says, and to fail when it is not well formed.

export interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

export interface MetricFamily {
  name: string;
  type: string;
  help: string;
  samples: Sample[];
}

const NAME = "[a-zA-Z_:][a-zA-Z0-9_:]*";
const HELP = new RegExp(`^# HELP (${NAME}) (.*)$`);
const TYPE = new RegExp(`^# TYPE (${NAME}) (counter|gauge|histogram|summary|untyped)$`);
const SAMPLE = new RegExp(`^(${NAME})(?:\\{(.*)\\})? (\\S+)(?: (-?\\d+))?$`);
const LABEL = /\s*([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"\s*(,|$)/y;
// Samples of a histogram or summary family carry these endings.
const SUFFIXES = ["_bucket", "_sum", "_count"];

// Values are read as Prometheus reads them (Go's ParseFloat): NaN and Inf in any case (prom-client writes "Nan").
function parseValue(text: string, line: string): number {
  if (/^\+?inf$/i.test(text)) return Infinity;
  if (/^-inf$/i.test(text)) return -Infinity;
  if (/^nan$/i.test(text)) return NaN;
  const value = Number(text);
  if (text === "" || Number.isNaN(value)) throw new Error(`not a number in: ${line}`);
  return value;
}

function parseLabels(text: string, line: string): Record<string, string> {
  const labels: Record<string, string> = {};
  LABEL.lastIndex = 0;
  while (LABEL.lastIndex < text.length) {
    const match = LABEL.exec(text);
    if (!match) throw new Error(`malformed labels in: ${line}`);
    labels[match[1]!] = match[2]!.replace(/\\(.)/g, (_, c: string) => (c === "n" ? "\n" : c));
  }
  return labels;
}

export function parsePrometheusText(text: string): Map<string, MetricFamily> {
  const families = new Map<string, MetricFamily>();
  const family = (name: string) => {
    let found = families.get(name);
    if (!found) families.set(name, (found = { name, type: "untyped", help: "", samples: [] }));
    return found;
  };
  for (const line of text.split("\n")) {
    if (line.trim() === "") continue;
    const help = HELP.exec(line);
    if (help) {
      family(help[1]!).help = help[2]!;
      continue;
    }
    const type = TYPE.exec(line);
    if (type) {
      family(type[1]!).type = type[2]!;
      continue;
    }
    if (line.startsWith("#")) throw new Error(`unexpected comment: ${line}`);
    const sample = SAMPLE.exec(line);
    if (!sample) throw new Error(`not a sample: ${line}`);
    const name = sample[1]!;
    const base = SUFFIXES.find((s) => name.endsWith(s) && families.has(name.slice(0, -s.length)));
    const owner = families.get(base ? name.slice(0, -base.length) : name);
    if (!owner) throw new Error(`sample before its TYPE line: ${line}`);
    owner.samples.push({
      name,
      labels: sample[2] ? parseLabels(sample[2], line) : {},
      value: parseValue(sample[3]!, line),
    });
  }
  return families;
}

/** The value of the one sample of `name` whose labels include `labels`; undefined when there is none. */
export function sampleValue(
  families: Map<string, MetricFamily>,
  name: string,
  labels: Record<string, string> = {},
): number | undefined {
  const matches = (families.get(name)?.samples ?? []).filter(
    (s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v),
  );
  if (matches.length > 1) throw new Error(`${matches.length} samples of ${name} match ${JSON.stringify(labels)}`);
  return matches[0]?.value;
}
