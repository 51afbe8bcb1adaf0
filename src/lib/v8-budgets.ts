/**
 * The V8 flags a robowatch command sets at start (main.ts, once the drivers loaded Node's
 * own modules), for the V8 it runs on.
 */

/**
 * How soon V8 optimises a function. A robowatch command is a batch that runs each hot
 * function a few thousand times and exits, and V8's default budget (67,584, tuned for
 * pages and long-lived servers) sent hundreds of functions to its optimising compiler on
 * helper threads: a third of a 3,000-site check's CPU, recompiled from scratch by every
 * run. With inlining (below), about nine times the bytecode (600,000) paid best: an
 * unchanged check spent about a fifth less CPU. Without inlining each compile is smaller,
 * and three times the default pays best: callgrind, 3,000 sites, a changed check 7% fewer
 * instructions a site than at 600,000 (less of it in the baseline tier's property loads),
 * an unchanged one the same; in CPU seconds, two runs of ten pairs, 0.97 and 0.98
 * (docs/performance.md, twenty-seventh round). The daemon optimises the same functions
 * sooner.
 *
 * V8 11 (Node 20) only: V8 12 (Node 22) tiers up by invocation counts, with Maglev between,
 * and has no such flag; given it, it printed "Error: unrecognized flag" on every command.
 * Its defaults are left as they are: a check costs about as much on Node 22 without the
 * budget as on Node 20 with it (docs/performance.md, nineteenth round).
 */
const INTERRUPT_BUDGET = '--interrupt-budget=200000';

/**
 * How soon V8 recompiles a WebAssembly function with its optimising compiler. undici (the
 * webhooks' client; the robots.txt fetcher's until it moved to Node's own) parses HTTP
 * with llhttp compiled to WebAssembly, and its parser's state machine (one 33 KB
 * function) reached V8's default budget within the first response: its optimised
 * compilation cost 0.15–0.17 s of CPU on a helper thread in every command that used it.
 * Here it runs as first compiled (V8's baseline compiler) until it has parsed about a
 * thousand responses, as a long run does. PGlite, WebAssembly too, was measured no slower.
 */
const WASM_TIERING_BUDGET = '--wasm-tiering-budget=1000000000';

/**
 * No inlining by V8's optimising compiler. A check optimises about 140 functions, most of
 * them run a few thousand times and then never again, and inlining their callees made
 * each compile larger (`computeVerdicts` 30 ms, the causes 18) than the calls it saved:
 * `bench:instructions`, the flag set at run time as here, a changed check of 300 sites
 * 5% fewer instructions a site beyond the start-up, an unchanged one the same
 * (docs/performance.md, twenty-sixth round). Measured on V8 11 alone; V8 12 keeps its
 * defaults, as for the interrupt budget.
 */
const NO_INLINING = '--no-turbo-inlining';

/**
 * From how many sites a check goes back to V8's own budgets. The budgets above were tuned
 * on checks of 3,000 sites, where optimising late pays; a longer run spends more of itself
 * in code V8 has not yet optimised, or optimised without inlining. Paired with V8's
 * defaults (`bench:check` with BENCH_COMPARE, docs/performance.md, the sixty-first round),
 * robowatch's CPU a changed site was 0.88 of theirs at 3,000 sites (five repetitions), 1.14
 * at 6,000 and 1.20 at 10,000 (three each). Going back to them from here, paired with the
 * build before: 0.94 at 5,000 sites, 0.89 at 10,000, and 0.86–0.88 for the daily sweep of
 * 100,000 unchanged sites (`bench:scale`, paired). The checks cross at different sizes
 * (the sixty-second round, paired at 4,000 sites): the first and the unchanged check cost
 * 1–11% more on these budgets there, the changed check 6–8% less; a check cannot know
 * before it fetches how many of its sites changed, so the line is where all three crossed.
 */
export const LONG_RUN_SITES = 5_000;

/** V8 11's own values of the two budgets robowatch sets (`node --v8-options`). */
const V8_OWN_BUDGETS = ['--interrupt-budget=67584', '--turbo-inlining'];

/**
 * The flags that give a check of `sites` sites V8's own budgets back (none below
 * LONG_RUN_SITES, or on a V8 that never had them set): set at run time once the check
 * knows how many sites it has, and read by V8 from then on.
 */
export function v8BudgetsForRun(version: string, sites: number): string[] {
  return setsBudgets(version) && sites >= LONG_RUN_SITES ? [...V8_OWN_BUDGETS] : [];
}

/** The flags to set on V8 `version` (`process.versions.v8`, e.g. "11.3.244.8-node.38"). */
export function v8Budgets(version: string): string[] {
  return setsBudgets(version)
    ? [INTERRUPT_BUDGET, NO_INLINING, WASM_TIERING_BUDGET]
    : [WASM_TIERING_BUDGET];
}

/** Whether robowatch sets its own budgets on V8 `version`: V8 11 (Node 20) and before. */
function setsBudgets(version: string): boolean {
  return Number(/^(\d+)\./.exec(version)?.[1] ?? Number.NaN) <= 11;
}
