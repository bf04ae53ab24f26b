/**
 * What every page script shares: finding an element, saying a message, making elements, and
 * asking the dashboard (an error answer becomes an Error carrying the dashboard's own words).
 */

/** The element with this id; the page's markup (import-html.ts, export-html.ts) always has it. */
export function $<T extends HTMLElement = HTMLElement>(id: string): T {
  const el = document.getElementById(id);
  if (!el) throw new Error(`the page has no element #${id}`);
  return el as T;
}

export const input = (id: string): HTMLInputElement => $<HTMLInputElement>(id);
export const select = (id: string): HTMLSelectElement => $<HTMLSelectElement>(id);
export const button = (id: string): HTMLButtonElement => $<HTMLButtonElement>(id);

/** Shows `text` in the element `id` (nothing clears it, and a cleared message describes no control any more). */
export function say(id: string, text?: string): void {
  $(id).textContent = text || '';
  if (!text) untie(id);
}

/** No control is described by the message `id` any more (see match-controls.ts, `sayTied`). */
export function untie(id: string): void {
  document.querySelectorAll<HTMLElement>('[aria-describedby]').forEach((el) => {
    const ids = (el.getAttribute('aria-describedby') || '').split(' ').filter((x) => x !== '' && x !== id);
    if (ids.length) el.setAttribute('aria-describedby', ids.join(' '));
    else el.removeAttribute('aria-describedby');
  });
}

/** An error answer: the dashboard's words and, for a stop about the whole file, the control that settles it (its accessible name). */
export class AnswerError extends Error {
  constructor(
    message: string,
    readonly control?: string,
  ) {
    super(message);
  }
}

/** `1 row`, `2 rows`. */
export function count(n: number, word: string): string {
  return n + ' ' + word + (n === 1 ? '' : 's');
}

export type Cell = string | number | null | undefined;

/** A new element with these attributes and, unless null or undefined, this text. */
export function make<K extends keyof HTMLElementTagNameMap>(tag: K, attrs?: Record<string, string>, text?: Cell): HTMLElementTagNameMap[K] {
  const e = document.createElement(tag);
  for (const k of Object.keys(attrs || {})) e.setAttribute(k, (attrs as Record<string, string>)[k] as string);
  if (text != null) e.textContent = String(text);
  return e;
}

export function option(sel: HTMLSelectElement, value: string, text: string): HTMLOptionElement {
  const o = make('option', { value }, text);
  sel.appendChild(o);
  return o;
}

/** The JSON of an answer; an error answer throws the dashboard's message. */
export async function answer<T>(res: Response): Promise<T> {
  const t = await res.text();
  let j: { error?: string; control?: unknown };
  try {
    j = JSON.parse(t);
  } catch {
    j = { error: t };
  }
  if (!res.ok) throw new AnswerError(j.error || 'the dashboard answered ' + res.status, typeof j.control === 'string' ? j.control : undefined);
  return j as T;
}

export function post<T>(url: string, body: unknown): Promise<T> {
  return fetch(url, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) }).then((res) => answer<T>(res));
}

/** The message of what a promise rejected with. */
export function messageOf(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}
