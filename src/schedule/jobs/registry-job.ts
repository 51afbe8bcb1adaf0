/** A registry.url fire: the AI crawler registry fetched, recorded and used if it is new. */
import type { DaemonContext, JobKind } from '../job-kind.js';

export function registryJobKind(context: DaemonContext): JobKind<{ fire: string }> {
  return {
    queue: 'registry',
    concurrency: 1,
    describe: () => 'AI crawler registry refresh',
    async handle() {
      await context.registry?.refresh();
      context.wake('deliver'); // what an update means may alert
    },
  };
}
