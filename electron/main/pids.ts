/**
 * Whether another process is still there, for the files that name their owner's process id: a
 * cache's session marker (cache/db.ts), the sync lock (sync/lock.ts), the profiles file's lock
 * (profiles/store.ts) and an export's temporary files (export/run.ts).
 */

/** Whether a process with this id is running (EPERM: running, under another user). */
export function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as { code?: string }).code === 'EPERM';
  }
}
