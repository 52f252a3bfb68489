/**
 * What the main thread asks the build worker: layers and catalog options as
 * plain data. Functions cannot cross threads, so an in-memory layer (learned
 * tools) is sent as the texts it holds now, and the Python import check
 * (a function) stays on the main thread.
 * @module
 */
import type { LayerInput, LayerSpec, LayerText } from '../load/loader.js';
import type { CatalogOptions } from './catalog.js';

/** A layer as sent: an in-memory layer's texts read once, as data. */
export type WireLayer = string | (Omit<LayerSpec, 'texts'> & { texts?: readonly LayerText[] });

/** The catalog options that can cross to the worker. */
export type WireOptions = Omit<CatalogOptions, 'memo' | 'pythonImports'>;

/** One build request. */
export interface BuildRequest {
  kind: 'build';
  id: number;
  layers: WireLayer[];
  options: WireOptions;
}

/** What the worker answers when a build threw (a bug, not bad input). */
export interface BuildErrorMessage {
  kind: 'error';
  id: number;
  message: string;
}

/** Layers as data: in-memory layers read now. */
export function wireLayers(layers: readonly LayerInput[]): WireLayer[] {
  return layers.map((layer): WireLayer => {
    if (typeof layer === 'string') return layer;
    const { texts, ...rest } = layer;
    return texts ? { ...rest, texts: texts() } : rest;
  });
}

/** Layers as the loader takes them again (the worker's side). */
export function reviveLayers(layers: readonly WireLayer[]): LayerInput[] {
  return layers.map((layer) => {
    if (typeof layer === 'string' || !layer.texts) return layer as LayerInput;
    const texts = layer.texts;
    return { ...layer, texts: () => texts };
  });
}

/** Options as data: the parts that are functions or thread-local left out. */
export function wireOptions(options: CatalogOptions): WireOptions {
  const { memo: _memo, pythonImports: _python, ...rest } = options;
  return rest;
}
