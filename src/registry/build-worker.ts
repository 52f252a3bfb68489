/**
 * The build worker: a `worker_threads` script that builds catalogs for one
 * registry, off the main thread. It keeps a {@link BuildMemo} between builds
 * (per-file parse and import by content hash, per-tool completion and
 * findings) and answers each request with a {@link BuiltMessage} whose tools
 * travel as transferred JSON chunks (registry/catalog-transfer.ts).
 * @module
 */
import { performance } from 'node:perf_hooks';
import { parentPort } from 'node:worker_threads';
import { errorMessage } from '../model/errors.js';
import { BuildMemo, catalogEtag } from './build-memo.js';
import { buildCatalog } from './catalog.js';
import { CatalogEncoder } from './catalog-transfer.js';
import { reviveLayers, type BuildRequest } from './worker-protocol.js';

const memo = new BuildMemo();
const encoder = new CatalogEncoder(memo);

parentPort?.on('message', (request: BuildRequest) => {
  const started = performance.now();
  try {
    const result = buildCatalog(reviveLayers(request.layers), { ...request.options, memo });
    // the etag after encoding: the encoder finds the re-imported values that serialise as before
    const message = encoder.encode(request.id, result, () => catalogEtag(result.catalog, memo), started);
    parentPort?.postMessage(message, [message.buffer, message.order]);
  } catch (error) {
    // a bug in a build, not bad input: the main thread builds this one itself and says so
    encoder.reset();
    parentPort?.postMessage({ kind: 'error', id: request.id, message: errorMessage(error) });
  }
});
