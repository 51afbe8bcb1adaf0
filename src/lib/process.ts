/**
 * Whether a process of this host runs with the id `pid` (one owned by another user counts:
 * it runs, this one may not signal it).
 */
export function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
