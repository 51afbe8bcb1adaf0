/**
 * The tester's thread: evaluates one proposed file at a time, away from the event loop
 * that serves pages, health checks and scheduled checks.
 */
import { parentPort } from 'node:worker_threads';
import { TESTER_LIMITS, testRobotsTxt } from '../../policy/tester.js';
import type { TesterInput } from '../../policy/tester.js';

parentPort?.on('message', (input: TesterInput) => {
  const result = testRobotsTxt(input);
  // The size as JSON decides whether it may be sent at all.
  const chars = JSON.stringify(result).length;
  parentPort!.postMessage(chars > TESTER_LIMITS.resultChars ? { tooLarge: chars } : { result });
});
// Loaded: a test's deadline starts now, not while this thread was starting.
parentPort?.postMessage({ ready: true });
