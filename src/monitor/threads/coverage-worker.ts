/**
 * A coverage thread: evaluates a site's URL set for some of its crawlers, away from the
 * event loop that serves pages and runs checks (see coverage-threads.ts).
 */
import { parentPort } from 'node:worker_threads';
import { computeCoverage } from '../../policy/coverage.js';
import { compareCoverage } from '../../policy/coverage-change.js';
import type { CoverageJob } from './coverage-threads.js';

parentPort?.on('message', (job: CoverageJob) => {
  try {
    const paths = typeof job.paths === 'string' ? job.paths.split('\n') : job.paths;
    const [first, second] = job.states;
    const result =
      job.op === 'coverage'
        ? computeCoverage(first!, paths, job.agents)
        : compareCoverage(first!, second!, paths, job.agents);
    parentPort!.postMessage({ id: job.id, result });
  } catch (error) {
    parentPort!.postMessage({ id: job.id, error: String(error) });
  }
});
