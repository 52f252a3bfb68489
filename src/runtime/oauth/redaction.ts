/**
 * A call's redactor with its OAuth tokens added: whatever the call lets out
 * (audit lines, spans, error messages, warnings) has the access token
 * replaced, even where it is not shaped like a known token.
 * @module
 */
import { createRedactor, type Redactor } from '../containment/redact.js';
import type { ProviderOAuthToken } from '../providers/types.js';

/**
 * `base`, then the tokens of `oauth`; `base` itself when there are none.
 * @example const redactor = withOAuthTokens(runtime.redactor, { github: { accessToken, tokenType: 'bearer' } });
 */
export function withOAuthTokens(base: Redactor, oauth: Readonly<Record<string, ProviderOAuthToken>> | undefined): Redactor {
  if (oauth === undefined) return base;
  const tokens = Object.values(oauth).map((t) => t.accessToken);
  if (tokens.length === 0) return base;
  const extra = createRedactor({ secrets: tokens });
  return {
    redact: (value) => extra.redact(base.redact(value)),
    redactText: (text) => extra.redactText(base.redactText(text)),
  };
}
