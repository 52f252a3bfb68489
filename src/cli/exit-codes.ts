/** Exit codes of the toolcap command. Only bin/toolcap.js hands them to the process. */
export const EXIT = {
  /** Done, no errors (warnings allowed unless --strict). */
  OK: 0,
  /** Findings: errors, or warnings under --strict; or a diff that escalates. */
  FINDINGS: 1,
  /** Bad usage, or a path that cannot be read. */
  USAGE: 2,
  /**
   * The call is waiting for a person's approval: nothing ran yet (EX_TEMPFAIL).
   * Distinct from OK so a script never mistakes a parked call for a result.
   */
  PENDING_APPROVAL: 75,
  /** A bug in toolcap (EX_SOFTWARE). */
  INTERNAL: 70,
  /** The reader of the output closed it early (`toolcap list --json | head`): 128 + SIGPIPE, as a command killed by it. */
  CLOSED_PIPE: 141,
} as const;
export type ExitCode = (typeof EXIT)[keyof typeof EXIT];
