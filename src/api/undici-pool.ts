/**
 * The undici Pool the creates go through (http-transport.ts), in a module of its own that
 * `loadPool` imports on the first create, so that no command loads undici at start-up.
 *
 * A static named import here rather than `import('undici')` there: in the CLI bundle (bin/build.mjs)
 * undici is bundled, and a dynamic import of a bundled CommonJS package yields its `default` alone
 * (esbuild cannot list a CommonJS module's exports), where a static import gets each export.
 */
import { Pool } from 'undici';

export function newPool(origin: string, options: Pool.Options): Pool {
  return new Pool(origin, options);
}
