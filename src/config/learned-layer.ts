/**
 * Where the learned layer (tools written at run time, runtime/learned)
 * goes among the layers a config names: after the files, before the
 * overrides. That is before the first layer whose name says it holds
 * overrides (`overrides/`, `local_overrides.yaml`: the word the loader uses
 * for override files, load/override-order.ts); without one, after the
 * config's sources (before persona folders and paths given besides the
 * config, which are reviewed overrides too), or last without a config.
 * @module
 */
import { layerPath, type LayerInput, type LayerSpec } from '../load/loader.js';
import { isOverrideFile } from '../load/override-order.js';

/**
 * The layers with the learned layer in its place.
 * @param afterSources the index just after the config's sources (the discovery cache counted), when there is a config
 * @example withLearnedLayer(['manifests/', 'overrides/'], learned.layer()) // ['manifests/', learned, 'overrides/']
 */
export function withLearnedLayer(layers: readonly LayerInput[], learned: LayerSpec, afterSources?: number): LayerInput[] {
  const out = [...layers];
  const firstOverride = out.findIndex((l) => !(typeof l !== 'string' && l.discovered) && isOverrideFile(layerPath(l).replace(/[\\/]+$/, '')));
  const at = firstOverride >= 0 ? firstOverride : (afterSources ?? out.length);
  out.splice(Math.min(at, out.length), 0, learned);
  return out;
}
