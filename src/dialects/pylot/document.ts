/**
 * A whole Pylot manifest: `schema_version`, `metadata` and `tools[]`. The
 * document-level fields become the canonical bundle; each tool entry is
 * translated by {@link importTool}.
 * @module
 */
import { compact } from '../../model/objects.js';
import type { BundleInfo, Tool } from '../../model/schema.js';
import { ObjectReader } from '../../source/reader.js';
import type { ImportContext, ImportedDocument, Located } from '../types.js';
import { importTool } from './tool.js';

/** The schema version this dialect implements. */
export const PYLOT_SCHEMA_VERSION = '1.0';
const KNOWN_VERSION = /^1\.0(\.0)?$/;
/** Later 1.x minors keep backward compatibility (the spec's design goal), so they read as 1.0. */
const COMPATIBLE_VERSION = /^1\.\d+(\.\d+)?$/;

/** Translate a parsed Pylot manifest. Never throws: problems become diagnostics. */
export function importPylot(context: ImportContext): ImportedDocument {
  const result: ImportedDocument = { tools: [], skills: [], agents: [], jobs: [] };
  const doc = ObjectReader.of(context, context.file.value, '', 'A Pylot tool manifest');
  if (!doc) return result;

  const schemaVersion = readSchemaVersion(doc);
  const metadata = readMetadata(doc);
  result.tools = readTools(doc);
  const fields = doc.rest({ where: 'the manifest' });

  // Pylot reads JSON and YAML alike; remember JSON so export writes the same kind of file.
  const format = context.file.format === 'json' ? 'json' : undefined;
  const pylot = compact<Record<string, unknown>>({ fields, format });
  const bundle = compact<BundleInfo>({ schemaVersion, ...metadata, extensions: pylot ? { pylot } : undefined });
  if (bundle) result.bundle = bundle;
  return result;
}

function readSchemaVersion(doc: ObjectReader): string | undefined {
  if (!doc.has('schema_version')) {
    doc.context.report('MISSING_FIELD', 'Missing "schema_version"; reading the manifest as version 1.0.', '', {
      severity: 'warning',
      hint: `Add schema_version: "${PYLOT_SCHEMA_VERSION}".`,
    });
  }
  if (typeof doc.value['schema_version'] === 'number') {
    // YAML reads an unquoted 1.0 as the number 1: the usual way this goes wrong.
    doc.consume('schema_version');
    doc.context.report('TYPE_MISMATCH', '"schema_version" must be a string, not a number.', doc.at('schema_version'), {
      hint: `Quote it: schema_version: "${PYLOT_SCHEMA_VERSION}".`,
    });
    return undefined;
  }
  const version = doc.string('schema_version');
  if (version === undefined || KNOWN_VERSION.test(version)) return version;
  const compatible = COMPATIBLE_VERSION.test(version);
  doc.context.report('UNKNOWN_SCHEMA_VERSION', `Pylot schema_version "${version}" is not ${PYLOT_SCHEMA_VERSION}; reading it as ${PYLOT_SCHEMA_VERSION}, best effort.`, doc.at('schema_version'), {
    // A newer 1.x minor is meant to stay compatible, so it is only worth a note.
    ...(compatible ? { severity: 'info' as const } : {}),
    hint: `toolcap knows Pylot schema ${PYLOT_SCHEMA_VERSION}; fields it does not know are kept as extensions.`,
  });
  return version;
}

/** `metadata` into bundle fields; keys Pylot does not name go to `bundle.metadata`. */
function readMetadata(doc: ObjectReader): Partial<BundleInfo> {
  if (!doc.has('metadata')) {
    doc.context.report('MISSING_FIELD', 'Missing "metadata".', '', {
      severity: 'warning',
      hint: 'Add metadata with at least a name and a description of the bundle.',
    });
  }
  const meta = doc.object('metadata');
  if (!meta) return {};
  const info = {
    name: meta.string('name'),
    description: meta.string('description'),
    version: meta.string('version'),
    maintainers: meta.strings('maintainers'),
    tags: meta.strings('tags'),
  };
  // metadata is human-readable free text by intent: extra keys are not unknown fields.
  return compact<BundleInfo>({ ...info, metadata: meta.rest({ quiet: true }) }) ?? {};
}

function readTools(doc: ObjectReader): Array<Located<Tool>> {
  if (!doc.has('tools')) {
    doc.context.report('MISSING_FIELD', 'Missing "tools".', '', { hint: 'Add tools: a list of tool entries (it may be empty).' });
  }
  const tools: Array<Located<Tool>> = [];
  doc.array('tools')?.forEach((entry, i) => {
    const tool = importTool(doc.context, entry, `${doc.at('tools')}/${i}`);
    if (tool) tools.push(tool);
  });
  return tools;
}
