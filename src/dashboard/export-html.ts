/**
 * The export page's HTML (README, "The export page"): server-rendered, one inline script
 * (page-script/export-page.ts, see page-scripts.ts).
 * Control names (`Export projects (.xlsx)`, `Export projects (.csv)`, `Download projects`, the
 * `status` region) are the interface tests and users' scripts rely on.
 */

import type { ScheduledExport } from './scheduled-exports.ts';

export function renderExportPage(d: { accounts: string[]; scheduled: ReadonlyMap<string, ScheduledExport>; script: string }): string {
  const options = d.accounts.map((a) => `<option value="${esc(a)}">${esc(a)}</option>`).join('');
  const scheduled = d.accounts.map((a, i) => scheduledLine(a, i, d.scheduled.get(a))).join('');
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Export projects · buildsync</title>
<style>
body{font:15px/1.45 system-ui,sans-serif;color:#1b1b1b;background:#fff;margin:0 auto;max-width:900px;padding:1rem}
h1{font-size:1.4rem}label{margin-right:1rem}select,button,a.button{font:inherit;min-height:44px}
button{padding:.35rem .9rem;margin:.3rem .3rem .3rem 0}
[role=status]{font-weight:600;background:#eef5ff;padding:.5rem .7rem;border-radius:4px;min-height:1.5em}
[hidden]{display:none!important}.err{color:#b00020}a{color:#0645ad}a.button{display:inline-flex;align-items:center;padding:0 .9rem;border:1px solid #0645ad;border-radius:4px;text-decoration:none}
</style></head><body>
<nav><a href="/queues/">Queues</a> · <a href="/budget">Budget</a> · <a href="/import/">Import</a></nav>
<h1>Export projects</h1>
<p>Every project the account sees, in one file: a workbook for Excel (typed cells: numbers, dates, and codes such as <code>02134</code> kept as text) or CSV. The export runs here, on the dashboard, and counts against the account's request budget.</p>
<p><label for="account">Service account</label> <select id="account">${options}</select></p>
<p><button type="button" id="xlsx">Export projects (.xlsx)</button> <button type="button" id="csv">Export projects (.csv)</button></p>
<div role="status" id="status" aria-live="polite"></div>
<p id="msg" class="err" role="alert"></p>
<p><a id="download" class="button" href="#" hidden>Download projects</a></p>
${scheduled}<script>
${d.script}
</script>
</body></html>`;
}

/**
 * The account's last scheduled export: a link `Last scheduled export` described by its date and
 * time when the dashboard can read the file, otherwise its time and path as text.
 */
function scheduledLine(account: string, i: number, s: ScheduledExport | undefined): string {
  if (!s) return '';
  const when = `${new Date(s.at).toISOString().slice(0, 16).replace('T', ' ')} UTC`;
  const what = `${when}, ${s.projects.toLocaleString('en-US')} projects, schedule ${esc(s.schedule)}`;
  const attrs = `data-account="${esc(account)}"${i === 0 ? '' : ' hidden'}`;
  if (s.readable && s.path) {
    const file = s.path.slice(s.path.lastIndexOf('/') + 1);
    return `<p ${attrs}><a class="button" href="/export/scheduled?account=${encodeURIComponent(account)}" aria-describedby="sched-${i}">Last scheduled export</a> <span id="sched-${i}">${what} (${esc(file)})</span></p>`;
  }
  const where = s.path ? `written to ${esc(s.path)}, which this dashboard cannot read (it is on the disk of the worker that ran it)` : 'written to the database, not to a file';
  return `<p ${attrs}>Last scheduled export: ${what}; ${where}.</p>`;
}

function esc(s: string): string {
  return s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}
