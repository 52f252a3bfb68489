/**
 * The `server` section: where the HTTP API and the MCP gateway listen, which
 * Host and Origin headers they answer (DNS rebinding fails), and the TLS
 * certificate when toolcap terminates HTTPS itself. `toolcap serve`'s
 * `--host` and `--port` win over it.
 * @module
 */
import { Type } from '@sinclair/typebox';
import { PathString, type ConfigReading } from '../reading.js';

/** Where the HTTP API and MCP gateway listen. */
export interface ServerConfig {
  /** @default '127.0.0.1' */
  host: string;
  /** 1 to 65535. @default 4317 */
  port: number;
  /** Host headers answered (`name` or `name:port`). @default the bind address's names (see bindNames in config/identity.ts) */
  allowedHosts?: string[];
  /** Origin headers answered (`http(s)://name[:port]`). @default http:// and https:// of the allowed hosts */
  allowedOrigins?: string[];
  /** Serve HTTPS with this certificate and key (absolute paths, PEM). @default plain HTTP */
  tls?: { cert: string; key: string };
}

/** @default { host: '127.0.0.1', port: 4317 } */
export const DEFAULT_SERVER: ServerConfig = { host: '127.0.0.1', port: 4317 };

const ORIGIN_PATTERN = '^https?://[^/\\s]+$';

/** `server`: host and port, allowed Host and Origin headers, TLS. */
export const ServerSchema = Type.Object(
  {
    host: Type.Optional(Type.String({ minLength: 1, pattern: '^\\S+$', default: DEFAULT_SERVER.host })),
    port: Type.Optional(Type.Integer({ minimum: 1, maximum: 65535, default: DEFAULT_SERVER.port })),
    allowedHosts: Type.Optional(Type.Array(Type.String({ minLength: 1, pattern: '^[^/\\s]+$' }), { description: 'Host headers answered (name or name:port). Default: the bind address\'s names.' })),
    allowedOrigins: Type.Optional(Type.Array(Type.String({ pattern: ORIGIN_PATTERN }), { description: 'Origin headers answered. Default: http(s):// of the allowed hosts.' })),
    tls: Type.Optional(
      Type.Object(
        { cert: PathString('A PEM certificate (chain), relative to the config file.'), key: PathString('Its PEM private key, relative to the config file.') },
        { additionalProperties: false, description: 'Serve HTTPS (or terminate TLS at a reverse proxy: docs/security.md).' },
      ),
    ),
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
  const checked = (key: string, ok: RegExp, example: string) =>
    serverReader.strings(key)?.filter((v, i) => {
      if (ok.test(v)) return true;
      reading.report('INVALID_VALUE', `"${v}" is not ${example.startsWith('http') ? 'an origin' : 'a host name'}.`, `${serverReader.at(key)}/${i}`, { hint: `Write it as ${example}.` });
      return false;
    });
  const allowedHosts = checked('allowedHosts', /^[^/\s]+$/, 'toolcap.example.org or 10.0.0.5:4317');
  const allowedOrigins = checked('allowedOrigins', new RegExp(ORIGIN_PATTERN), 'https://toolcap.example.org');
  const tls = readTls(reading, serverReader.object('tls'));
  serverReader.rest({ where: 'server (known: host, port, allowedHosts, allowedOrigins, tls)' });
  return {
    ...DEFAULT_SERVER,
    ...(usable ? { host } : {}),
    ...(port !== undefined ? { port } : {}),
    ...(allowedHosts ? { allowedHosts } : {}),
    ...(allowedOrigins ? { allowedOrigins } : {}),
    ...(tls ? { tls } : {}),
  };
}

function readTls(reading: ConfigReading, tlsReader: ReturnType<ConfigReading['top']['object']>): ServerConfig['tls'] {
  if (!tlsReader) return undefined;
  const file = (key: 'cert' | 'key') => {
    if (!tlsReader.has(key)) {
      reading.report('MISSING_FIELD', `server.tls needs "${key}".`, tlsReader.pointer, { hint: 'Give both cert and key (PEM files), or drop tls.' });
      return undefined;
    }
    const path = reading.pathString(tlsReader.raw(key), tlsReader.at(key), `TLS ${key === 'cert' ? 'certificate' : 'key'}`);
    if (path === undefined) return undefined;
    const kind = reading.exists(path, tlsReader.at(key), `TLS ${key === 'cert' ? 'certificate' : 'key'}`);
    if (kind === 'folder') reading.report('INVALID_VALUE', `The TLS ${key} must be a file, not a folder.`, tlsReader.at(key), {});
    return kind === 'file' ? path : undefined;
  };
  const cert = file('cert');
  const key = file('key');
  tlsReader.rest({ where: 'server.tls (known: cert, key)' });
  return cert !== undefined && key !== undefined ? { cert, key } : undefined;
}
