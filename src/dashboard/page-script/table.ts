/** A table with a caption and a header row; number columns align right (class `num`). */
import { make } from './dom.ts';

export function table(caption: string, heads: string[]): HTMLTableElement {
  const t = make('table');
  t.appendChild(make('caption', {}, caption));
  const tr = make('tr');
  heads.forEach((h) => tr.appendChild(make('th', { scope: 'col', class: /^(Lines|Items|Categories|Total)$/.test(h) ? 'num' : '' }, h)));
  t.appendChild(tr);
  return t;
}
