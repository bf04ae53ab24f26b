import { dirname } from 'node:path';
// @ts-expect-error bin/build.mjs is plain JavaScript without types
import { buildBundle } from '../bin/build.mjs';
import { CLI_BUNDLE } from './helpers/cli-path.ts';

/**
 * Builds the CLI once per test run into an esbuild bundle, as `npm run build` does for images
 * (the same bin/build.mjs: the entry plus its lazily loaded chunks), so that every test that
 * spawns `buildsync` starts it under plain node (about a second less per start than through tsx,
 * over a hundred starts a run).
 */
export default async function setup(): Promise<void> {
  await (buildBundle as (outdir: string) => Promise<unknown>)(dirname(CLI_BUNDLE));
}
