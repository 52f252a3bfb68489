/**
 * `toolcap serve`'s webhooks: the config's `webhooks` section opened (secrets
 * from the environment, the dispatcher connected), with a clear line when
 * the dispatcher cannot be reached.
 * @module
 */
import type { Config } from '../config/config.js';
import { openWebhooks } from '../config/sections/webhooks.js';
import type { WebhookOptions } from '../server/routes/hooks.js';
import { EXIT, type ExitCode } from './exit-codes.js';
import type { CliIO } from './io.js';

/** The API's webhook options and their close, or the exit code after saying why not. */
export async function serveWebhooks(config: Config | undefined, io: CliIO, redact: (text: string) => string): Promise<{ options?: WebhookOptions; close(): Promise<void> } | ExitCode> {
  if (!config?.webhooks) return { close: async () => undefined };
  try {
    const opened = await openWebhooks(config.webhooks, { ...(io.env ?? process.env) });
    for (const w of opened.warnings) io.stderr(`toolcap: ${w}\n`);
    const tools = Object.keys(opened.options.tools);
    io.stderr(`toolcap: webhooks for ${tools.join(', ') || 'no tools'} dispatch to ${config.webhooks.dispatcher.kind}\n`);
    return opened;
  } catch (error) {
    io.stderr(`toolcap: cannot open the webhook dispatcher (${config.webhooks.dispatcher.kind}): ${redact(error instanceof Error ? error.message : String(error))}\n`);
    return EXIT.USAGE;
  }
}
