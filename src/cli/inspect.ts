/**
 * `toolcap inspect <path>... [--persona P] [--json] [--out F]`: the merged
 * canonical catalog, with where every tool came from.
 * @module
 */
import { catalogDocument, provenance, type Catalog } from '../registry/catalog.js';
import { toolKey } from '../registry/merge.js';
import type { Tool } from '../model/schema.js';
import { shareDefs } from '../model/schema-defs.js';
import { EXIT, type ExitCode } from './exit-codes.js';
import { logLine, pathKind, writeOut, type CliIO } from './io.js';
import { summarize } from './render.js';
import { basisLines } from './inspect-basis.js';
import { exitFor, loadCatalog, printDiagnostics, type LoadFlags } from './shared.js';

export interface InspectFlags extends LoadFlags {
  persona?: string;
  json?: boolean;
  out?: string;
}

export function inspectCommand(paths: string[], flags: InspectFlags, io: CliIO): ExitCode {
  const result = loadCatalog(paths, flags);
  printDiagnostics(result, io);
  const code = exitFor(result);
  if (code === EXIT.USAGE) return code;
  const catalogDoc = catalogDocument(result.catalog, flags.persona);
  // shared schema definitions once, at the top (model/schema-defs.ts), not repeated in every tool
  const shared = shareDefs(catalogDoc.tools);
  const doc = { ...catalogDoc, tools: shared.tools, ...(shared.$defs ? { $defs: shared.$defs } : {}), provenance: provenance(result.catalog) };
  const json = `${JSON.stringify(doc, null, 2)}\n`;
  if (flags.out !== undefined) {
    const problem = pathKind(flags.out) === 'folder' ? `${flags.out} is a folder; give a file name` : writeOut(flags.out, json);
    if (problem !== undefined) {
      io.stderr(`toolcap: ${problem}\n`);
      return EXIT.USAGE;
    }
    io.stderr(`Wrote the merged catalog (${doc.tools.length} tools) to ${flags.out}\n`);
  }
  if (flags.json) io.stdout(json);
  else if (flags.out === undefined) io.stdout(describe(result.catalog, doc.tools));
  io.stderr(`${summarize(doc.tools.length, result.diagnostics)}\n`);
  return code;
}

function flag(tool: Tool, path: string): string {
  return tool.derived?.includes(path) ? '*' : '';
}

/** A readable listing: one block per tool. */
function describe(catalog: Catalog, tools: readonly Tool[]): string {
  const lines: string[] = [];
  const origins = provenance(catalog);
  const entries = new Map(catalog.tools.map((e) => [e.key, e]));
  for (const tool of tools) {
    const e = tool.effects ?? {};
    const scope = tool.scope?.personas?.length ? `personas: ${tool.scope.personas.join(', ')}` : 'shared';
    lines.push(`${tool.name}${tool.version ? ` ${tool.version}` : ''}  [${scope}]${tool.enabled === false ? '  (disabled)' : ''}`);
    if (tool.description) lines.push(`  ${tool.description.split('\n')[0]}`);
    lines.push(
      `  mode ${e.mode}${flag(tool, 'effects.mode')} · side effects ${e.sideEffects}${flag(tool, 'effects.sideEffects')} · ` +
        `risk ${e.risk}${flag(tool, 'effects.risk')} · reversible ${e.reversible}${flag(tool, 'effects.reversible')} · ` +
        `approval ${tool.approval?.required ? 'required' : 'no'}${flag(tool, 'approval.required')}${tool.approval?.consent ? ' + consent' : ''} · ` +
        `timeout ${tool.execution?.timeoutSec}s${flag(tool, 'execution.timeoutSec')} · retry ${tool.execution?.retryClass}${flag(tool, 'execution.retryClass')}`,
    );
    const chain = (origins[toolKey(tool)] ?? []).map((o) => `${o.file}:${o.line ?? '?'} (${o.dialect})`);
    if (chain.length > 0) lines.push(`  from ${chain.join(' <- overridden by ')}`.replace(/ <- overridden by /g, ', overridden by '));
    const entry = entries.get(toolKey(tool));
    if (entry) for (const basis of basisLines(entry, catalog)) lines.push(`  ${basis}`);
  }
  lines.push('', '* derived: not declared as such; read off the source\'s own words ("read off" above), or else the most restrictive reading consistent with what was declared.');
  const counts = [`${catalog.skills.length} skills`, `${catalog.agents.length} agents`, `${catalog.jobs.length} jobs`].join(', ');
  lines.push(counts);
  // names are safe, but descriptions, versions and the words read off them are the manifest's: one line each, escaped
  return `${lines.map(logLine).join('\n')}\n`;
}
