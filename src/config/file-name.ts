/**
 * The config file's default name, on its own so that the command line can
 * name it without loading the config reader.
 * @module
 */

/** The file name looked for in the current folder when no paths are given. */
export const DEFAULT_CONFIG_FILE = 'toolcap.config.yaml';
