/** The import page's Vendors table: a vendor ID for each vendor name of a bills file. */
import type { Vendor } from './answers.ts';
import { $, input, make, messageOf, post, say } from './dom.ts';
import { kind, S, stale } from './import-state.ts';

function vendorInputs(): NodeListOf<HTMLInputElement> {
  return document.querySelectorAll<HTMLInputElement>('#vendor-table input[data-vendor]');
}

/** Draws the table again, keeping what was typed in it. */
export function renderVendors(vendors: Vendor[] | undefined): void {
  const typed: Record<string, string> = {};
  vendorInputs().forEach((x) => {
    if (x.value.trim() !== x.dataset.orig) typed[x.dataset.vendor as string] = x.value;
  });
  const list = vendors || [];
  const box = $('vendor-table');
  box.textContent = '';
  $('vendors').hidden = kind() !== 'bills' || !list.length;
  if (!list.length) return;
  const t = make('table');
  t.appendChild(make('caption', {}, 'Vendor ID for each vendor name of the file'));
  const hr = make('tr');
  hr.appendChild(make('th', { scope: 'col' }, 'Vendor in the file'));
  hr.appendChild(make('th', { scope: 'col' }, 'Vendor ID'));
  t.appendChild(hr);
  list.forEach((v) => {
    const tr = make('tr');
    tr.appendChild(make('th', { scope: 'row' }, v.name));
    const td = make('td');
    const x = make('input', { type: 'text', 'aria-label': 'Vendor ID for ' + v.name, inputmode: 'numeric', autocomplete: 'off' });
    x.dataset.vendor = v.name;
    x.dataset.orig = v.listed != null ? v.listed : v.vendorId || '';
    x.value = typed[v.name] != null ? (typed[v.name] as string) : v.vendorId || '';
    if (!x.value) x.setAttribute('aria-invalid', 'true');
    x.addEventListener('change', stale);
    td.appendChild(x);
    tr.appendChild(td);
    t.appendChild(tr);
  });
  box.appendChild(t);
}

/** Vendor list: a CSV of vendor,vendor_id fills the IDs of the names it has. */
export function wireVendorList(): void {
  input('vendorlist').addEventListener('change', async () => {
    say('vendor-msg');
    const f = input('vendorlist').files?.[0];
    if (!f) return;
    const names: string[] = [];
    vendorInputs().forEach((x) => names.push(x.dataset.vendor as string));
    try {
      const j = await post<{ ids: Record<string, string | number | null>; message?: string }>('/import/vendor-list', { upload: S.upload, name: f.name, text: await f.text(), names });
      vendorInputs().forEach((x) => {
        const id = j.ids[x.dataset.vendor as string];
        if (id != null) {
          x.value = String(id);
          x.removeAttribute('aria-invalid');
        }
      });
      say('vendor-msg', j.message || '');
      stale();
    } catch (e) {
      say('vendor-msg', messageOf(e));
    }
  });
}
