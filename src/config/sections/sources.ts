/**
 * The `sources` section: the manifest layers, in order, each a path or
 * `{ path, dialect }`. Every path must exist. It goes to the registry (as
 * layers, through `configLayers`).
 * @module
 */
import { Type } from '@sinclair/typebox';
import { DIALECT_IDS, type DialectId } from '../../dialects/types.js';
import { joinPointer, type Location } from '../../model/diagnostics.js';
import { ObjectReader, isPlainObject, jsonType } from '../../source/reader.js';
import { at } from '../../source/source.js';
import { PathString, type ConfigReading } from '../reading.js';

/** One layer named by the config. */
export interface ConfigSource {
  /** Absolute path of the file or folder. */
  path: string;
  /** Read every file of this layer as this dialect instead of detecting it. */
  dialect?: DialectId;
  /** Where the entry stands in the config file. */
  location: Location;
}

/** `sources`: layers, in order; later layers override earlier ones. */
export const SourcesSchema = Type.Array(
  Type.Union([
    PathString('A manifest file or folder, relative to the config file.'),
    Type.Object(
      {
        path: PathString('A manifest file or folder, relative to the config file.'),
        dialect: Type.Optional(Type.Unsafe<DialectId>({ type: 'string', enum: [...DIALECT_IDS], description: 'Read this layer as this format instead of detecting it.' })),
      },
      { additionalProperties: false },
    ),
  ]),
  { minItems: 1, description: 'Layers, in order; later layers override earlier ones.' },
);

/** Read `sources` (required, not empty); entries whose path is bad or missing are reported and left out. */
export function readSources(reading: ConfigReading): ConfigSource[] {
  const { top, context, file, report } = reading;
  const sources: ConfigSource[] = [];
  if (!top.has('sources')) {
    report('MISSING_FIELD', 'Missing required field "sources".', '', { hint: 'List the manifest files or folders, in layer order: sources: [manifests/, overrides/].' });
  }
  const rawSources = top.array('sources');
  if (rawSources?.length === 0) {
    report('INVALID_VALUE', '"sources" is empty.', top.at('sources'), { hint: 'Name at least one manifest file or folder.' });
  }
  rawSources?.forEach((item, i) => {
    const pointer = joinPointer(top.at('sources'), i);
    if (isPlainObject(item)) {
      const entry = new ObjectReader(context, item, pointer);
      if (!entry.has('path')) report('MISSING_FIELD', 'A source needs a "path".', pointer, { hint: 'Write { path: manifests/, dialect: atlas }.' });
      const path = entry.has('path') ? reading.pathString(entry.raw('path'), entry.at('path'), 'source path') : undefined;
      const dialect = entry.enumValue('dialect', DIALECT_IDS);
      entry.rest({ where: 'a source' });
      if (path !== undefined && reading.exists(path, entry.at('path'), 'source')) sources.push({ path, location: at(file, entry.at('path')), ...(dialect ? { dialect } : {}) });
    } else if (typeof item === 'string') {
      const path = reading.pathString(item, pointer, 'source path');
      if (path !== undefined && reading.exists(path, pointer, 'source')) sources.push({ path, location: at(file, pointer) });
    } else {
      report('TYPE_MISMATCH', `A source must be a path or { path, dialect }, not ${jsonType(item)}.`, pointer, { hint: 'Write the path relative to the config file.' });
    }
  });
  return sources;
}
