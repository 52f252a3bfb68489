/**
 * Where ATLAS keeps its manifests. The folder a file lives in says what it
 * holds (tools, jobs or skills) and whose it is (shared, or one persona's):
 *
 * - `modules/Tools/tool_maps/functions.json`, `modules/Personas/<P>/Toolbox/functions.json`
 * - `modules/Jobs/jobs.json`, `modules/Personas/<P>/Jobs/jobs.json`
 * - `modules/Skills/skills.json`, `modules/Personas/<P>/Skills/skills.json`
 * @module
 */

/** What one ATLAS manifest file holds. */
export type AtlasFileKind = 'tools' | 'jobs' | 'skills';

/** Paths with `/` separators, so one set of patterns serves every platform. */
function normalize(path: string): string {
  return path.replace(/\\/g, '/');
}

/**
 * The kind a file's path implies, or undefined when the path says nothing.
 * The folder names are ATLAS's own spelling, so a lowercase `skills.json`
 * elsewhere (another system's registry) is not taken for ours.
 */
export function kindFromPath(path: string): AtlasFileKind | undefined {
  const p = normalize(path);
  if (/(^|\/)functions\.json$/.test(p)) return 'tools';
  if (/(^|\/)Jobs\/jobs\.json$/.test(p)) return 'jobs';
  if (/(^|\/)Skills\/skills\.json$/.test(p)) return 'skills';
  return undefined;
}

/**
 * The persona that owns a file under `Personas/<P>/{Toolbox,Jobs,Skills}/`,
 * spelled as the folder is (e.g. "Atlas"); undefined for shared files.
 */
export function personaFromPath(path: string): string | undefined {
  const match = /(?:^|\/)Personas\/([^/]+)\/(?:Toolbox|Jobs|Skills)\/[^/]+\.json$/.exec(normalize(path));
  return match?.[1];
}

/** Where a file of this kind lives, shared or for one persona. */
export function atlasPath(kind: AtlasFileKind, persona?: string): string {
  if (persona === undefined) {
    if (kind === 'tools') return 'modules/Tools/tool_maps/functions.json';
    return kind === 'jobs' ? 'modules/Jobs/jobs.json' : 'modules/Skills/skills.json';
  }
  const folder = kind === 'tools' ? 'Toolbox' : kind === 'jobs' ? 'Jobs' : 'Skills';
  return `modules/Personas/${persona}/${folder}/${kind === 'tools' ? 'functions' : kind}.json`;
}

