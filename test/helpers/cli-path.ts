import { resolve } from 'node:path';

/**
 * The CLI the tests spawn: the esbuild bundle `test/global-setup.ts` builds once per run from
 * the sources (under node_modules, so that its bare imports resolve as in `dist/`).
 * `bin/buildsync.mjs` itself (the tsx entry `npx buildsync` runs) is covered by cli-sandbox-smoke.
 */
export const CLI_BUNDLE = resolve(import.meta.dirname, '..', '..', 'node_modules', '.cache', 'buildsync-test', 'buildsync.mjs');
