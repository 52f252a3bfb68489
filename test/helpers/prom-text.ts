/**
 * A strict reader of the Prometheus text exposition format (0.0.4), for
 * tests: every line must be a HELP, a TYPE or a sample of a declared family
 * (histogram samples only as _bucket, _sum, _count, buckets with `le`),
 * label names valid, values escaped, no family declared twice, no sample
 * repeated. Anything else throws with the line number.
 */

/** One sample. */
export interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

/** One metric family. */
export interface Family {
  name: string;
  type: 'counter' | 'gauge' | 'histogram' | 'summary' | 'untyped';
  help: string;
  samples: Sample[];
}

const NAME = /^[a-zA-Z_:][a-zA-Z0-9_:]*$/;
const LABEL = /^[a-zA-Z_][a-zA-Z0-9_]*$/;

function parseLabels(text: string, at: string): Record<string, string> {
  const labels: Record<string, string> = {};
  let i = 0;
  while (i < text.length) {
    const eq = text.indexOf('=', i);
    if (eq < 0) throw new Error(`${at}: label without =`);
    const name = text.slice(i, eq);
    if (!LABEL.test(name)) throw new Error(`${at}: bad label name "${name}"`);
    if (text[eq + 1] !== '"') throw new Error(`${at}: label value not quoted`);
    let j = eq + 2;
    let value = '';
    for (; j < text.length && text[j] !== '"'; j++) {
      if (text[j] === '\\') {
        const next = text[++j];
        if (next === 'n') value += '\n';
        else if (next === '\\' || next === '"') value += next;
        else throw new Error(`${at}: bad escape \\${String(next)}`);
      } else value += text[j];
    }
    if (text[j] !== '"') throw new Error(`${at}: unterminated label value`);
    if (name in labels) throw new Error(`${at}: label "${name}" repeated`);
    labels[name] = value;
    i = j + 1;
    if (i < text.length) {
      if (text[i] !== ',') throw new Error(`${at}: expected , between labels`);
      i++;
    }
  }
  return labels;
}

function familyOf(name: string, families: Map<string, Family>): Family | undefined {
  const exact = families.get(name);
  if (exact) return exact;
  for (const suffix of ['_bucket', '_sum', '_count']) {
    if (!name.endsWith(suffix)) continue;
    const f = families.get(name.slice(0, -suffix.length));
    if (f && (f.type === 'histogram' || (f.type === 'summary' && suffix !== '_bucket'))) return f;
  }
  return undefined;
}

/** Parse an exposition strictly; families by name. */
export function parsePrometheusText(text: string): Map<string, Family> {
  const families = new Map<string, Family>();
  const seen = new Set<string>();
  const lines = text.split('\n');
  lines.forEach((line, n) => {
    const at = `line ${n + 1}`;
    if (line === '') return;
    if (line.startsWith('# HELP ') || line.startsWith('# TYPE ')) {
      const [, kind, name, ...rest] = line.split(' ');
      if (!name || !NAME.test(name)) throw new Error(`${at}: bad metric name`);
      const f = families.get(name) ?? { name, type: 'untyped' as const, help: '', samples: [] };
      if (kind === 'HELP') f.help = rest.join(' ');
      else {
        const type = rest.join(' ');
        if (!['counter', 'gauge', 'histogram', 'summary', 'untyped'].includes(type)) throw new Error(`${at}: bad type "${type}"`);
        if (families.has(name) && families.get(name)!.samples.length > 0) throw new Error(`${at}: TYPE after samples`);
        f.type = type as Family['type'];
      }
      families.set(name, f);
      return;
    }
    if (line.startsWith('#')) return;
    const m = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)(?: (-?\d+))?$/.exec(line);
    if (!m) throw new Error(`${at}: not a sample: ${line}`);
    const [, name, labelText, valueText] = m as unknown as [string, string, string | undefined, string];
    // Prometheus reads values with Go's ParseFloat: NaN in any case (prom-client writes "Nan"), ±Inf
    const nan = /^nan$/i.test(valueText);
    const value = valueText === '+Inf' ? Infinity : valueText === '-Inf' ? -Infinity : nan ? NaN : Number(valueText);
    if (Number.isNaN(value) && !nan) throw new Error(`${at}: bad value ${valueText}`);
    const family = familyOf(name, families);
    if (!family) throw new Error(`${at}: sample of an undeclared family ${name}`);
    const labels = labelText ? parseLabels(labelText, at) : {};
    if (name.endsWith('_bucket') && family.type === 'histogram' && !('le' in labels)) throw new Error(`${at}: bucket without le`);
    const key = `${name}${JSON.stringify(Object.entries(labels).sort())}`;
    if (seen.has(key)) throw new Error(`${at}: sample repeated`);
    seen.add(key);
    family.samples.push({ name, labels, value });
  });
  return families;
}

/** The value of the one sample of `name` whose labels include `labels`; undefined when none. */
export function sampleValue(families: Map<string, Family>, name: string, labels: Record<string, string> = {}): number | undefined {
  for (const f of families.values()) {
    for (const s of f.samples) if (s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v)) return s.value;
  }
  return undefined;
}
