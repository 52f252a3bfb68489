/**
 * The `probe-file` provider: what a task-source tool runs when its tasks
 * are a file rather than a service (`metadata.probe.file`, the `file`
 * adapter). It reads, on each call:
 * - a `.jsonl` / `.ndjson` file: one JSON value a line (blank lines skipped);
 * - another file: one JSON document (the mapping's `items` finds the list);
 * - a folder: its `.json` files (each one task, or an array of tasks) and
 *   `.jsonl` files, in name order, not recursing.
 *
 * The path is relative to the folder of the manifest that defines the tool
 * and must stay inside it, symbolic links resolved (a manifest names its own
 * data, not the machine's files). Reads are bounded by `maxResponseBytes`.
 * Runtimes get it with {@link withProbeFiles} around their provider
 * resolver, so a file probe is routed, timed, recorded and audited like any
 * call (`toolcap call` on the tool returns the records too).
 * @module
 */
import { readdir, readFile, realpath, stat } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { extname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import type { Tool } from '../../model/schema.js';
import type { ProviderResolver } from '../provider-slots.js';
import type { ProviderSlot } from '../providers/provider-types.js';
import { ProviderConfigError, ProviderError, type ProviderEnvironment, type ProviderInstance } from '../providers/types.js';

/** The provider name and type of a file probe. */
export const PROBE_FILE = 'probe-file';

const DEFAULT_MAX_BYTES = 10 * 1024 * 1024;
const LINE_FILES = new Set(['.jsonl', '.ndjson']);

/** `metadata.probe.file` of a tool that declares no providers, else undefined. */
export function probeFileOf(tool: Tool): string | undefined {
  const probe = tool.metadata?.['probe'];
  if (probe === null || typeof probe !== 'object' || Array.isArray(probe)) return undefined;
  const file = (probe as Record<string, unknown>)['file'];
  if (typeof file !== 'string' || file === '') return undefined;
  if ((tool.providers?.length ?? 0) > 0 || (tool.implementation?.module ?? '') !== '') return undefined;
  return file;
}

function inside(root: string, path: string): boolean {
  const rel = relative(root, path);
  return rel === '' || (!rel.startsWith(`..${sep}`) && rel !== '..' && !isAbsolute(rel));
}

/** Parse one file's text: lines for .jsonl/.ndjson, else one document. */
function parseText(text: string, name: string, lines: boolean): unknown {
  const bad = (where: string, error: unknown) => new ProviderError('BAD_RESPONSE', `${where}: not JSON (${error instanceof Error ? error.message : String(error)})`, true);
  if (!lines) {
    try {
      return JSON.parse(text) as unknown;
    } catch (error) {
      throw bad(name, error);
    }
  }
  const out: unknown[] = [];
  text.split('\n').forEach((line, i) => {
    if (line.trim() === '') return;
    try {
      out.push(JSON.parse(line) as unknown);
    } catch (error) {
      throw bad(`${name}:${i + 1}`, error);
    }
  });
  return out;
}

/**
 * The provider instance reading `file` for `tool`, relative to `environment.baseDir`.
 * Throws {@link ProviderConfigError} for a path outside the manifest's folder.
 */
export function probeFileProvider(tool: Tool, file: string, environment: ProviderEnvironment): ProviderInstance {
  const root = resolve(environment.baseDir);
  const path = resolve(root, file);
  if (isAbsolute(file) || !inside(root, path)) {
    throw new ProviderConfigError(`metadata.probe.file of tool "${tool.name}" ("${file}") is outside the manifest's folder; keep task files beside the manifest`);
  }
  const maxBytes = environment.maxResponseBytes ?? DEFAULT_MAX_BYTES;
  /** A reader of files for one call, counting the bytes it read against `maxBytes`. */
  const reader = (signal: AbortSignal) => {
    let budget = 0;
    return async (full: string, name: string): Promise<unknown> => {
      budget += (await stat(full)).size;
      if (budget > maxBytes) throw new ProviderError('RESPONSE_TOO_LARGE', `${file}: more than ${maxBytes} bytes of tasks`, true);
      return parseText(await readFile(full, { encoding: 'utf8', signal }), name, LINE_FILES.has(extname(full).toLowerCase()));
    };
  };
  return {
    name: PROBE_FILE,
    type: PROBE_FILE,
    ready: () => (existsSync(path) ? { healthy: true } : { healthy: false, reason: `${file} does not exist` }),
    codeIdentity: async () => `${PROBE_FILE}:${path}`,
    async call(_args, context) {
      const read = reader(context.signal);
      let real: string;
      let realRoot: string;
      try {
        [real, realRoot] = await Promise.all([realpath(path), realpath(root)]);
      } catch {
        throw new ProviderError('PROVIDER_UNAVAILABLE', `${file} does not exist`, true);
      }
      if (!inside(realRoot, real)) throw new ProviderError('PROVIDER_UNAVAILABLE', `${file} leads outside the manifest's folder (a symbolic link)`, true);
      if (!(await stat(real)).isDirectory()) return read(real, file);
      const names = (await readdir(real)).filter((n) => ['.json', ...LINE_FILES].includes(extname(n).toLowerCase())).sort();
      const items: unknown[] = [];
      for (const n of names) {
        const full = join(real, n);
        if (!inside(realRoot, await realpath(full)) || !(await stat(full)).isFile()) continue;
        const value = await read(full, `${file}/${n}`);
        if (Array.isArray(value)) items.push(...(value as unknown[]));
        else items.push(value);
      }
      return items;
    },
  };
}

/**
 * A provider resolver that gives each tool with `metadata.probe.file` (and
 * no providers of its own) the `probe-file` provider; other tools go to
 * `resolver`. A path outside the manifest's folder makes a slot with the
 * error, so calls say why (NO_HEALTHY_PROVIDER).
 * @example new Runtime({ registry, store, providers: withProbeFiles(new ProviderTypes()) })
 */
export function withProbeFiles(resolver: ProviderResolver): ProviderResolver {
  return {
    instantiate(tool: Tool, environment: ProviderEnvironment): ProviderSlot[] {
      const file = probeFileOf(tool);
      if (file === undefined) return resolver.instantiate(tool, environment);
      const entry = { name: PROBE_FILE, priority: 0 };
      try {
        return [{ entry, priority: 0, type: PROBE_FILE, instance: probeFileProvider(tool, file, environment) }];
      } catch (error) {
        return [{ entry, priority: 0, type: PROBE_FILE, error: error instanceof Error ? error.message : String(error) }];
      }
    },
  };
}
