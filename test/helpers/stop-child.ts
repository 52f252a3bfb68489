/**
 * Stopping a child process in a test and waiting until it has exited: a
 * test that removes the child's folder next must not race a `toolcap
 * serve` still writing its store there while it shuts down (ENOTEMPTY
 * under load).
 * @module
 */
import type { ChildProcess } from 'node:child_process';

/** SIGTERM `child` (nothing when it has exited already) and resolve once it has. */
export function stopChild(child: ChildProcess | undefined): Promise<void> {
  if (!child || child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise<void>((resolve) => {
    child.once('exit', () => resolve());
    child.kill('SIGTERM');
  });
}
