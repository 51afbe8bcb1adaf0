/**
 * Part of the composition root (imported first by main.ts, so that it runs before the
 * rest is loaded): how soon V8 optimises a function. A robowatch command is a batch
 * that runs each hot function a few thousand times and exits, and V8's default (tuned for
 * pages and long-lived servers) sends hundreds of functions to its optimising compiler on
 * helper threads: a third of a 3,000-site check's CPU, recompiled from scratch by every
 * run. Four times the bytecode executed before a function is optimised leaves the few
 * truly hot ones optimised and skips the rest: the helper threads' share falls from ~35%
 * to ~20%, and an unchanged check of 3,000 sites spends about a fifth less CPU (bench:check,
 * docs/performance.md). The daemon optimises the same functions, a little later.
 */
import { setFlagsFromString } from 'node:v8';

/** V8's default is 67,584 (bytes of bytecode executed, weighted). */
export const INTERRUPT_BUDGET = 600_000;

setFlagsFromString(`--interrupt-budget=${INTERRUPT_BUDGET}`);
