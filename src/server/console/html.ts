/**
 * HTML for the console, written as tagged templates: every interpolated
 * value is escaped unless it is already {@link Safe} (the output of another
 * template), so a manifest's description or a caller's arguments can never
 * become markup. No JSX build step, no dependency.
 * @module
 */

/** Markup that needs no more escaping. */
export class Safe {
  constructor(readonly text: string) {}
  toString(): string {
    return this.text;
  }
}

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

/** Text as HTML (attribute-safe: quotes escaped too). */
export const escapeHtml = (text: string): string => text.replace(/[&<>"']/g, (c) => ESCAPES[c] as string);

function part(value: unknown): string {
  if (value === undefined || value === null || value === false) return '';
  if (value instanceof Safe) return value.text;
  if (Array.isArray(value)) return value.map(part).join('');
  return escapeHtml(String(value));
}

/**
 * The template tag: strings as written, values escaped (arrays joined,
 * `undefined`/`null`/`false` dropped, nested templates kept).
 * @example h`<td>${tool.description}</td>`
 */
export function h(strings: TemplateStringsArray, ...values: unknown[]): Safe {
  let out = strings[0] ?? '';
  for (let i = 0; i < values.length; i++) out += part(values[i]) + (strings[i + 1] ?? '');
  return new Safe(out);
}

/** A query string from pairs, empty values left out: `?a=1&b=2`, or '' when nothing is left. */
export function queryString(params: Iterable<[string, string]>): string {
  const kept = new URLSearchParams([...params].filter(([, v]) => v !== ''));
  const text = kept.toString();
  return text === '' ? '' : `?${text}`;
}

/** JSON, indented, for a `<pre>` (escaped by the template that shows it). */
export const pretty = (value: unknown): string => JSON.stringify(value, null, 2) ?? 'undefined';

/** A `<select>` of options, the current one selected; the first option is "any" (empty value). */
export function select(name: string, label: string, options: readonly string[], current: string | undefined): Safe {
  return h`<label>${label}<select name="${name}"><option value="">any</option>${options.map((o) => h`<option${o === current ? h` selected` : ''}>${o}</option>`)}</select></label>`;
}
