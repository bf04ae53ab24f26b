// Node module hooks (module.register, from bin/source-loader.mjs): a `.lua` file imported by the
// sources is a module whose default export is the file's text, as esbuild's text loader makes it
// in the bundle (bin/build.mjs).
import { readFile } from 'node:fs/promises';

export async function load(url, context, nextLoad) {
  if (!url.startsWith('file:') || !new URL(url).pathname.endsWith('.lua')) return nextLoad(url, context);
  const text = await readFile(new URL(url), 'utf8');
  return { format: 'module', source: `export default ${JSON.stringify(text)};`, shortCircuit: true };
}
