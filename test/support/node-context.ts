/**
 * The node platform as the daemon builds it (its HTTP clients, its listener), for tests
 * that need its parts without running a command: no signals, no input, this process's
 * standard streams.
 */
import * as drivers from '../../src/drivers.js';
import { nodeContext } from '../../src/node-platform.js';

export function quietNodeContext(): ReturnType<typeof nodeContext> {
  return nodeContext({
    io: { stdin: process.stdin, stdout: process.stdout, stderr: process.stderr },
    version: 'test',
    cwd: '/tmp',
    env: {},
    pid: process.pid,
    drivers: () => drivers,
    waitForSignal: () => new Promise(() => undefined),
    onHangup: () => () => undefined,
  });
}
