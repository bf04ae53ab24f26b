// `node --import ./bin/source-loader.mjs FILE.ts`: runs the TypeScript sources as they are, as the
// bundle would: tsx for the TypeScript, and the Redis scripts' `.lua` files imported as their text
// (bin/lua-hooks.mjs; in the bundle, esbuild's text loader). The benches, check-claims and the
// bin's fallback without esbuild load the sources through it; plain `--import tsx` cannot load them.
import { register } from 'node:module';
import 'tsx';

register('./lua-hooks.mjs', import.meta.url);
