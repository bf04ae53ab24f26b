/**
 * The export page's script (README, "The export page"), bundled by bin/build.mjs into the page
 * (src/dashboard/page-scripts.ts): starts an export, polls its status into the `status` region,
 * then shows the download link.
 */
import { $, button, messageOf, select } from './dom.ts';

interface ExportRun {
  id: string;
  state: 'running' | 'done' | 'failed';
  done: boolean;
  projects: number;
  name: string;
  bytes: number;
  error?: string;
}

let busy = false;

const n = (x: number): string => x.toLocaleString('en-US');
const size = (b: number): string => (b < 1e6 ? Math.max(1, Math.round(b / 1e3)) + ' KB' : (b / 1e6).toFixed(1) + ' MB');

function show(r: ExportRun): void {
  if (r.state === 'running') {
    $('status').textContent = 'Exporting: ' + n(r.projects) + ' projects so far';
    return;
  }
  if (r.state === 'done') {
    $('status').textContent = 'done: ' + n(r.projects) + ' projects in ' + r.name + ' (' + size(r.bytes) + ')';
    return;
  }
  $('status').textContent = 'failed after ' + n(r.projects) + ' projects';
  $('msg').textContent = r.error || 'the export failed';
}

/** An answer's JSON body and whether it was a success. */
function body(res: Response): Promise<{ ok: boolean; b: ExportRun & { error?: string } }> {
  return res.json().then((b) => ({ ok: res.ok, b }));
}

function end(): void {
  busy = false;
  button('xlsx').disabled = false;
  button('csv').disabled = false;
}

function lost(e: unknown): void {
  $('msg').textContent = 'lost the dashboard: ' + messageOf(e);
  end();
}

function follow(id: string): void {
  fetch('/export/status.json?id=' + encodeURIComponent(id), { headers: { accept: 'application/json' } })
    .then(body)
    .then((x) => {
      if (!x.ok) {
        $('msg').textContent = x.b.error || '';
        end();
        return;
      }
      show(x.b);
      if (!x.b.done) {
        setTimeout(() => follow(id), 400);
        return;
      }
      if (x.b.state === 'done') {
        const a = $<HTMLAnchorElement>('download');
        a.href = '/export/download?id=' + encodeURIComponent(id);
        a.setAttribute('download', x.b.name);
        a.hidden = false;
      }
      end();
    })
    .catch(lost);
}

function start(format: 'xlsx' | 'csv'): void {
  if (busy) return;
  busy = true;
  button('xlsx').disabled = true;
  button('csv').disabled = true;
  $('msg').textContent = '';
  $('download').hidden = true;
  $('status').textContent = 'Starting the export…';
  $('status').focus();
  fetch('/export/run', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ format, account: select('account').value }) })
    .then(body)
    .then((x) => {
      if (!x.ok) {
        $('status').textContent = '';
        $('msg').textContent = x.b.error || '';
        end();
        return;
      }
      show(x.b);
      follow(x.b.id);
    })
    .catch(lost);
}

/** Only the chosen account's `Last scheduled export` line shows. */
function account(): void {
  const v = select('account').value;
  document.querySelectorAll<HTMLElement>('[data-account]').forEach((el) => {
    el.hidden = el.getAttribute('data-account') !== v;
  });
}

select('account').addEventListener('change', account);
account();
$('status').tabIndex = -1;
$('xlsx').addEventListener('click', () => start('xlsx'));
$('csv').addEventListener('click', () => start('csv'));
