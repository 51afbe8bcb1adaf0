import { oneLine } from '../lib/errors.js';
import type { Logger } from '../lib/logger.js';
import { isConnectionError } from './db.js';
import type { SqlExecutor } from './db.js';

/**
 * The job engine's executor, saying in the log when the database stops answering and
 * when it answers again (once each: the engine's queries fail quietly meanwhile).
 */
export function watchDatabase(executor: SqlExecutor, logger: Logger): SqlExecutor {
  let down = false;
  return {
    executeSql: async (text, values) => {
      try {
        const result = await executor.executeSql(text, values);
        if (down) {
          down = false;
          logger.info({}, 'database reachable again');
        }
        return result;
      } catch (error) {
        if (!down && isConnectionError(error)) {
          down = true;
          logger.error({ error: oneLine(error) }, 'database unreachable');
        }
        throw error;
      }
    },
  };
}
