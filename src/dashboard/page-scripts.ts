/**
 * The text of each page's script (src/dashboard/page-script/, TypeScript for the browser), served
 * inline by its page. The CLI bundle carries them, bundled by bin/build.mjs
 * (`__BUILDSYNC_PAGE_SCRIPTS__`); run from the sources (tsx, vitest) they are bundled with esbuild
 * on the first request, by the same bin/build.mjs, and kept.
 */
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { packageRoot } from '../package-root.ts';

export type PageScriptName = 'import-page' | 'export-page';
type PageScripts = Record<PageScriptName, string>;

/** The scripts as JSON (bin/build.mjs): a string define stays in this module's chunk, the dashboard's. */
declare const __BUILDSYNC_PAGE_SCRIPTS__: string | undefined;

let scripts: Promise<PageScripts> | undefined;

export function pageScript(name: PageScriptName): Promise<string> {
  if (!scripts) {
    scripts = typeof __BUILDSYNC_PAGE_SCRIPTS__ !== 'undefined' ? Promise.resolve(JSON.parse(__BUILDSYNC_PAGE_SCRIPTS__) as PageScripts) : fromSources();
    // A script that failed to build (a checkout being edited) is bundled again at the next request.
    scripts.catch(() => {
      scripts = undefined;
    });
  }
  return scripts.then((all) => all[name]);
}

async function fromSources(): Promise<PageScripts> {
  const build = (await import(pathToFileURL(join(packageRoot(), 'bin', 'build.mjs')).href)) as { bundlePageScripts: () => Promise<PageScripts> };
  return build.bundlePageScripts();
}
