import { existsSync } from 'node:fs';
import { chromium, type Browser } from 'playwright-core';

/** Debian's Chromium (apt-get install chromium). */
export const CHROMIUM = '/usr/bin/chromium';
/**
 * Whether the browser tests run: on a developer's machine without Chromium they skip; under
 * CI=true they always run, so a missing Chromium fails them instead of passing silently.
 */
export const hasChromium = existsSync(CHROMIUM) || process.env.CI === 'true';

/** Headless, and without background networking: this machine's network is closed. */
export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--no-first-run', '--disable-sync'],
  });
}
