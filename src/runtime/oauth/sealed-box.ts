/**
 * Sealing OAuth tokens for the store: AES-256-GCM with a 32-byte key the
 * operator provides (`TOOLCAP_SECRET_KEY`, or the variable `store.secretKeyEnv`
 * names). Each seal has a fresh 96-bit IV; the additional data binds the
 * ciphertext to its row (tool and service), so a row copied onto another
 * tool's does not open. Without a key nothing is sealed or opened: the
 * caller is told how to provide one ({@link SecretKeyError}).
 * @module
 */
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';

/** The environment variable the key is read from unless config names another. */
export const DEFAULT_SECRET_KEY_ENV = 'TOOLCAP_SECRET_KEY';

/** The prefix of every sealed value: the format version. */
const VERSION = 'v1';

/** No key, or a key that is not 32 bytes, or a sealed value the key does not open. */
export class SecretKeyError extends Error {
  override readonly name = 'SecretKeyError' as const;
  constructor(
    readonly reason: 'missing' | 'invalid' | 'mismatch',
    message: string,
    options?: ErrorOptions,
  ) {
    super(message, options);
  }
}

/** How to make a key, for messages. */
export const KEY_HINT = 'generate one with `openssl rand -base64 32` and keep it in a secret store';

/**
 * The 32-byte key in `text`: base64, base64url or hex. Throws
 * {@link SecretKeyError} (`missing` or `invalid`, never echoing the value).
 * @example parseSecretKey(process.env.TOOLCAP_SECRET_KEY, 'TOOLCAP_SECRET_KEY')
 */
export function parseSecretKey(text: string | undefined, envName: string = DEFAULT_SECRET_KEY_ENV): Buffer {
  const value = text?.trim() ?? '';
  if (value === '') {
    throw new SecretKeyError('missing', `${envName} is not set: OAuth tokens are stored encrypted, and there is no key to encrypt them with; ${KEY_HINT}, then export ${envName}.`);
  }
  const key = /^[0-9a-fA-F]{64}$/.test(value)
    ? Buffer.from(value, 'hex')
    : /^[A-Za-z0-9+/_-]{43}=?$/.test(value)
      ? Buffer.from(value.replace(/-/g, '+').replace(/_/g, '/'), 'base64')
      : undefined;
  if (key === undefined || key.length !== 32) {
    throw new SecretKeyError('invalid', `${envName} is not a 256-bit key (32 bytes as base64 or 64 hex digits); ${KEY_HINT}.`);
  }
  return key;
}

/** Seals and opens values with one key. */
export interface SealedBox {
  /** `plain` encrypted and bound to `context` (e.g. `tool\u0000service`). */
  seal(plain: string, context: string): string;
  /** The plain text of a sealed value; throws SecretKeyError `mismatch` when the key or context differ, or it was altered. */
  open(sealed: string, context: string): string;
}

const b64 = (b: Buffer): string => b.toString('base64url');

/**
 * A box over a parsed key.
 * @example const box = sealedBox(parseSecretKey(env.TOOLCAP_SECRET_KEY)); box.open(box.seal('t', 'a'), 'a') // 't'
 */
export function sealedBox(key: Buffer): SealedBox {
  if (key.length !== 32) throw new SecretKeyError('invalid', 'The OAuth token key must be 32 bytes.');
  return {
    seal(plain, context) {
      const iv = randomBytes(12);
      const cipher = createCipheriv('aes-256-gcm', key, iv);
      cipher.setAAD(Buffer.from(context, 'utf8'));
      const data = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
      return [VERSION, b64(iv), b64(data), b64(cipher.getAuthTag())].join('.');
    },
    open(sealed, context) {
      const parts = sealed.split('.');
      if (parts.length !== 4 || parts[0] !== VERSION) throw new SecretKeyError('mismatch', 'The stored OAuth tokens are not in a format this toolcap reads.');
      try {
        const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(parts[1]!, 'base64url'));
        decipher.setAAD(Buffer.from(context, 'utf8'));
        decipher.setAuthTag(Buffer.from(parts[3]!, 'base64url'));
        return Buffer.concat([decipher.update(Buffer.from(parts[2]!, 'base64url')), decipher.final()]).toString('utf8');
      } catch (error) {
        throw new SecretKeyError('mismatch', 'The stored OAuth tokens do not open with this key (the key changed, or the row was altered).', { cause: error });
      }
    },
  };
}
