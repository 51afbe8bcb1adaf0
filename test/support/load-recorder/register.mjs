/**
 * Preloaded with `node --import` by test/support/load-record.ts: records every module the
 * process loads (ES modules through the hooks below, Node's own from its load list) in the
 * files named by ROBOWATCH_LOAD_RECORD.
 */
import { writeFileSync } from 'node:fs';
import { register } from 'node:module';
import process from 'node:process';
import { URL } from 'node:url';

register(new URL('./hooks.mjs', import.meta.url));
process.on('exit', () =>
  writeFileSync(`${process.env.ROBOWATCH_LOAD_RECORD}.builtins`, process.moduleLoadList.join('\n')),
);
