/**
 * The `server` section: where the HTTP API and the MCP gateway listen.
 * `toolcap serve`'s `--host` and `--port` win over it.
 * @module
 */
import { Type } from '@sinclair/typebox';
import type { ConfigReading } from '../reading.js';

/** Where the HTTP API and MCP gateway listen. */
export interface ServerConfig {
  /** @default '127.0.0.1' */
  host: string;
  /** 1 to 65535. @default 4317 */
  port: number;
}

/** @default { host: '127.0.0.1', port: 4317 } */
export const DEFAULT_SERVER: ServerConfig = { host: '127.0.0.1', port: 4317 };

/** `server`: host and port. */
export const ServerSchema = Type.Object(
  {
    host: Type.Optional(Type.String({ minLength: 1, pattern: '^\\S+$', default: DEFAULT_SERVER.host })),
    port: Type.Optional(Type.Integer({ minimum: 1, maximum: 65535, default: DEFAULT_SERVER.port })),
  },
  { additionalProperties: false },
);

/** Read `server` (optional); fields not given keep {@link DEFAULT_SERVER}. */
export function readServer(reading: ConfigReading): ServerConfig {
  const serverReader = reading.top.object('server');
  if (!serverReader) return { ...DEFAULT_SERVER };
  const host = serverReader.string('host');
  const usable = host !== undefined && host.trim() !== '' && !/\s/.test(host);
  if (host !== undefined && !usable) {
    reading.report('INVALID_VALUE', `The server host "${host}" is not a host name or address.`, serverReader.at('host'), { hint: 'Write host: 127.0.0.1 (or 0.0.0.0 to listen on every interface).' });
  }
  const port = serverReader.number('port', { integer: true, min: 1, max: 65535 });
  serverReader.rest({ where: 'server' });
  return { ...DEFAULT_SERVER, ...(usable ? { host } : {}), ...(port !== undefined ? { port } : {}) };
}
