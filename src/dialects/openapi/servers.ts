/**
 * The server an operation is sent to. OpenAPI 3: the first `servers` entry of
 * the operation, else of its path item, else of the document, with server
 * variables replaced by their defaults. Swagger 2.0: the first of `schemes`
 * (https when none) with `host` and `basePath`; only `basePath` when there is
 * no host (the spec then means the host that served the document).
 * @module
 */
import { isPlainObject } from '../../source/reader.js';
import type { OpenApiDocument, Operation } from './document.js';

/** The base URL for one operation (or for the document when `op` is omitted), or undefined when none is written. */
export function serverOf(doc: OpenApiDocument, op?: Operation): string | undefined {
  if (doc.flavour === '2.0') return swaggerServer(doc.root);
  for (const owner of [op?.value, op?.item, doc.root]) {
    const servers = owner?.['servers'];
    const first: unknown = Array.isArray(servers) ? servers[0] : undefined;
    if (isPlainObject(first) && typeof first['url'] === 'string') return withDefaults(first['url'], first['variables']);
  }
  return undefined;
}

function swaggerServer(root: Record<string, unknown>): string | undefined {
  const host = typeof root['host'] === 'string' ? root['host'] : undefined;
  const basePath = typeof root['basePath'] === 'string' ? root['basePath'] : '';
  if (host === undefined) return basePath === '' ? undefined : basePath;
  const schemes = Array.isArray(root['schemes']) ? root['schemes'].filter((s): s is string => typeof s === 'string') : [];
  const scheme = schemes.includes('https') || schemes.length === 0 ? 'https' : schemes[0];
  return `${scheme}://${host}${basePath}`;
}

/** `{var}` replaced by the variable's default; unknown variables stay as written. */
function withDefaults(url: string, variables: unknown): string {
  if (!isPlainObject(variables)) return url;
  return url.replace(/\{([^}]+)\}/g, (whole, name: string) => {
    const variable = variables[name];
    return isPlainObject(variable) && typeof variable['default'] === 'string' ? variable['default'] : whole;
  });
}
