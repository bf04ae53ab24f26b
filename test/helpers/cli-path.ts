import { resolve } from 'node:path';

/**
 * The CLI the tests spawn: the esbuild bundle `test/global-setup.ts` builds once per run from
 * the sources (under node_modules, so that its bare imports resolve as in `dist/`).
 * `bin/buildsync.mjs` itself (the tsx entry `npx buildsync` runs) is covered by cli-sandbox-smoke.
 */
export const CLI_BUNDLE = resolve(import.meta.dirname, '..', '..', 'node_modules', '.cache', 'buildsync-test', 'buildsync.mjs');

/**
 * The node options every spawned CLI runs with. A test's CLI run is short and its input small,
 * and V8's optimizing compiler (TurboFan, on a background thread) spent about 14 % of a dry run's
 * instructions compiling functions the run then barely used (callgrind: 2.65 G instructions at
 * V8's default interrupt budget, 2.29 G at ten times it). A budget ten times the default delays
 * tier-up without disabling it: a long run (a 200 MB file of the bad-input corpus) still optimizes
 * its hot loops after a few more iterations. Behaviour is the same; only where CPU goes changes.
 * Only under vitest: a bench (bench/*.ts shares these helpers) measures the CLI and its workers as
 * they ship, with V8's defaults.
 */
export const CLI_NODE_FLAGS = process.env.VITEST ? ['--interrupt-budget=675840'] : [];
