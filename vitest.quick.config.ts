import { defineConfig } from 'vitest/config';
import base, { luaAsText, QUICK } from './vitest.config.ts';

/**
 * `npm run test:quick`: the in-process files of vitest.config.ts (no other process, no browser)
 * but its scale tests (`@scale`), on one Redis (no cluster project), sharing their workers'
 * modules as in the whole suite.
 * `npm test` stays the whole suite. No global set-up: nothing here runs the CLI's bundle.
 */
const inProcess = (base.test?.projects as Array<{ test: Record<string, unknown> }>)[0]!.test;

export default defineConfig({
  plugins: [luaAsText],
  test: {
    ...inProcess,
    name: 'quick',
    include: QUICK,
    exclude: ['**/node_modules/**'],
  },
});
