/** Exit codes of the toolcap command. Only bin/toolcap.js hands them to the process. */
export const EXIT = {
  /** Done, no errors (warnings allowed unless --strict). */
  OK: 0,
  /** Findings: errors, or warnings under --strict; or a diff that escalates. */
  FINDINGS: 1,
  /** Bad usage, or a path that cannot be read. */
  USAGE: 2,
  /** A bug in toolcap (EX_SOFTWARE). */
  INTERNAL: 70,
} as const;
export type ExitCode = (typeof EXIT)[keyof typeof EXIT];
