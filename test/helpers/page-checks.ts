/**
 * What the browser tests of the import page check on every step (README, The import page): no
 * control under 44 px, no sideways scroll, no two controls with one accessible name, where focus is.
 */
import type { FileChooser, Page } from 'playwright-core';

/** The roles of the page's controls (links acting as buttons included). */
const CONTROL_ROLES = new Set(['button', 'checkbox', 'combobox', 'link', 'radio', 'spinbutton', 'textbox', 'listbox', 'slider', 'switch']);

/**
 * Every visible control whose box is under 44 px tall, as `tag#id (height)`; a radio's or a
 * checkbox's target is its label.
 */
export async function shortControls(page: Page): Promise<string[]> {
  // Runs in the page (a string: the tests are typed without the DOM's globals).
  return (await page.evaluate(`(() => {
    const out = [];
    for (const el of document.querySelectorAll('button, select, input, a[href], summary, [role=button], textarea')) {
      if (el.offsetParent === null && getComputedStyle(el).position !== 'fixed') continue;
      const target = el.type === 'radio' || el.type === 'checkbox' ? (el.closest('label') || el) : el;
      const h = target.getBoundingClientRect().height;
      if (h < 44) out.push(el.tagName.toLowerCase() + (el.id ? '#' + el.id : '') + ' "' + (el.textContent || el.getAttribute('aria-label') || '').trim().slice(0, 30) + '" (' + h.toFixed(1) + ' px)');
    }
    return out;
  })()`)) as string[];
}

export const scrollWidth = async (page: Page) => Number(await page.evaluate('document.documentElement.scrollWidth'));

/** The accessible names of the page's controls (from Chromium's accessibility tree) that more than one control has. */
export async function sharedNames(page: Page): Promise<string[]> {
  const tree = await page.locator('body').ariaSnapshot();
  const seen = new Map<string, number>();
  for (const m of tree.matchAll(/^\s*- (\w+) "((?:[^"\\]|\\.)*)"/gm)) {
    if (!CONTROL_ROLES.has(m[1]!)) continue;
    seen.set(m[2]!, (seen.get(m[2]!) ?? 0) + 1);
  }
  return [...seen].filter(([, n]) => n > 1).map(([name, n]) => `${name} ×${n}`);
}

/** The focused element as `role:name`. */
export const focusedLabel = (page: Page) => page.evaluate(`(() => {
  const el = document.activeElement;
  return el ? (el.getAttribute('role') || el.tagName.toLowerCase()) + ':' + (el.getAttribute('aria-label') || el.id) : '';
})()`);

/** Presses Tab until the focused element matches `selector` (at most 80 times); the test only reads where focus is. */
export async function tabTo(page: Page, selector: string): Promise<void> {
  for (let i = 0; i < 80; i++) {
    await page.keyboard.press('Tab');
    if ((await page.locator(`${selector}:focus`).count()) > 0) return;
  }
  throw new Error(`Tab never reached ${selector}`);
}

/**
 * Space on the focused file input opens the chooser, which Playwright hands over only once it has
 * asked Chromium to intercept choosers. It asks when the first 'filechooser' listener is added, and
 * does not wait for the answer: a key that reached Chromium first opened a chooser nobody saw (on a
 * loaded machine, now and then; pressed again after a 5 s wait, the first waiter's end had turned the
 * interception off again, and the next press raced it anew). So the listener is added first, one
 * round trip to the page lets the request through before the key, and the one listener waits for
 * the chooser: it resolves as soon as the chooser opens.
 */
export async function openChooserWithSpace(page: Page): Promise<FileChooser> {
  const chooser = page.waitForEvent('filechooser', { timeout: 30_000 });
  await page.evaluate('0');
  await page.keyboard.press('Space');
  return chooser;
}
