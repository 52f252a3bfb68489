/**
 * The hash an approval is bound to besides the manifest: the code the call
 * would run. Each provider the call may use, in priority order, names its
 * code (`ProviderInstance.codeIdentity()`: the module file and its local
 * imports, the command's executable and its hash, the http provider's
 * method, URL template and origin, the MCP server and tool schema); the hash
 * covers them all with the manifest's `toolHash`, so a reviewed call runs
 * only the code that was reviewed. A provider that cannot say (no
 * `codeIdentity`, or it fails) is named by its type and what went wrong,
 * which fails closed: an approval made then is void once it can say.
 * @module
 */
import { contentHash, toolHash } from '../model/hash.js';
import { errorMessage } from '../model/errors.js';
import type { Tool } from '../model/schema.js';
import type { ProviderSlot } from './providers/provider-types.js';
import type { ProviderInstance } from './providers/types.js';

/** A provider that may name its code (the optional member of ProviderInstance). */
type Identified = ProviderInstance & { codeIdentity?: () => Promise<string> };

/** What one provider slot contributes: its name, type and code identity (or why there is none). */
async function slotIdentity(slot: ProviderSlot): Promise<unknown[]> {
  const instance = slot.instance as Identified | undefined;
  if (!instance) return [slot.entry.name, slot.type ?? null, `not runnable: ${slot.error ?? 'unknown'}`];
  if (!instance.codeIdentity) return [slot.entry.name, instance.type, null];
  try {
    return [slot.entry.name, instance.type, await instance.codeIdentity()];
  } catch (error) {
    return [slot.entry.name, instance.type, `unknown: ${errorMessage(error)}`];
  }
}

/**
 * `sha256:` of the manifest hash and every provider's code identity, in slot (priority) order.
 * @example const bound = await codeHash(tool, slots.of(snapshot, tool));
 */
export async function codeHash(tool: Tool, slots: readonly ProviderSlot[]): Promise<string> {
  const code = await Promise.all(slots.map(slotIdentity));
  return contentHash({ manifest: toolHash(tool), code });
}
