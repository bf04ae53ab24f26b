import { existsSync } from 'node:fs';
import { chromium, type Browser, type BrowserContext, type BrowserContextOptions, type Page } from 'playwright-core';

/** Debian's Chromium (apt-get install chromium). */
export const CHROMIUM = '/usr/bin/chromium';
/**
 * Whether the browser tests run: on a developer's machine without Chromium they skip; under
 * CI=true they always run, so a missing Chromium fails them instead of passing silently.
 */
export const hasChromium = existsSync(CHROMIUM) || process.env.CI === 'true';

/**
 * Headless, and without background networking: this machine's network is closed. A test that
 * needs a browser process of its own (it kills it, or needs other launch options) launches one
 * here; the others open a `browserSession()` on the worker's shared Chromium.
 */
export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--no-first-run', '--disable-sync'],
  });
}

/**
 * A test's or file's own browser: its contexts (own cookies, storage and viewport) on the worker's
 * shared Chromium. `newPage` opens a page in a context of its own, as Browser.newPage does.
 * `close()` closes every context it opened, never the shared browser.
 */
export interface BrowserSession {
  newContext(options?: BrowserContextOptions): Promise<BrowserContext>;
  newPage(options?: BrowserContextOptions): Promise<Page>;
  close(): Promise<void>;
}

/**
 * Kept on globalThis rather than in this module: the `single` project shares its worker's modules
 * across files (isolate: false), and a file that resets the module registry must not launch a
 * second Chromium.
 */
const SHARED = Symbol.for('buildsync.test.sharedChromium');
const EXIT_HANDLER = Symbol.for('buildsync.test.sharedChromiumExitHandler');
type Shared = { [SHARED]?: Promise<Browser>; [EXIT_HANDLER]?: true };

/**
 * One Chromium per vitest worker process, launched on first use (issue 40: one per file or test was
 * 64 launches a suite run, and their start and shutdown much of the suite's CPU). Relaunched if it
 * crashed or failed to start.
 */
function sharedChromium(): Promise<Browser> {
  const g = globalThis as Shared;
  if (g[SHARED]) return g[SHARED];
  const launched = launchChromium();
  g[SHARED] = launched;
  launched.then(
    (browser) => browser.on('disconnected', () => g[SHARED] === launched && delete g[SHARED]),
    () => g[SHARED] === launched && delete g[SHARED],
  );
  closeAtWorkerExit();
  return launched;
}

/**
 * vitest stops a fork with SIGTERM, and SIGKILL 500 ms later. Playwright's own SIGTERM listener
 * replaces Node's exit on the signal with a graceful close, after which the worker lives on until
 * its event loop is empty or that SIGKILL comes. So the worker closes Chromium itself (0.1 to 0.4 s measured) and exits; should the close take longer, playwright's
 * 'exit' handler SIGKILLs Chromium's process group. Were the worker killed first, Chromium would
 * still quit, on the end of its DevTools pipe (checked with `kill -9` of its parent). Chromium's
 * helpers, reparented at its exit, are zombies until init reaps them, a few seconds later.
 */
function closeAtWorkerExit(): void {
  const g = globalThis as Shared;
  if (g[EXIT_HANDLER]) return;
  g[EXIT_HANDLER] = true;
  process.once('SIGTERM', () => {
    const closed = g[SHARED]?.then((browser) => browser.close()).catch(() => {});
    void Promise.race([closed, new Promise((resolve) => setTimeout(resolve, 400))]).then(() => process.exit(143));
  });
}

export async function browserSession(): Promise<BrowserSession> {
  const browser = await sharedChromium();
  const contexts = new Set<BrowserContext>();
  const newContext = async (options?: BrowserContextOptions) => {
    const context = await browser.newContext(options);
    contexts.add(context);
    context.on('close', () => contexts.delete(context));
    return context;
  };
  return {
    newContext,
    async newPage(options) {
      const context = await newContext(options);
      const page = await context.newPage();
      // As with Browser.newPage: closing the page closes its context.
      page.on('close', () => void context.close().catch(() => {}));
      return page;
    },
    async close() {
      await Promise.all([...contexts].map((c) => c.close().catch(() => {})));
    },
  };
}
