/**
 * `toolcap schema`: the canonical JSON Schema, for editors and CI.
 * @module
 */
import { canonicalJsonSchema } from '../model/schema.js';
import { EXIT, type ExitCode } from './exit-codes.js';
import type { CliIO } from './io.js';

export function schemaCommand(io: CliIO): ExitCode {
  io.stdout(`${JSON.stringify(canonicalJsonSchema(), null, 2)}\n`);
  return EXIT.OK;
}
