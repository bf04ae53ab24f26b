/**
 * The import page's HTML (README, The import page): server-rendered, an inline script
 * (page-script/import-page.ts, see page-scripts.ts), no framework. Control names are the interface tests and users' scripts
 * rely on; every message the page shows speaks of these controls, never of command-line flags.
 */
import { PAGE_ENCODINGS } from '../import-service/index.ts';
import { IMPORT_PAGE_STYLE } from './import-style.ts';

export interface ImportPageData {
  accounts: string[];
  workers: number;
  importId?: string;
  maxUploadMb: number;
  /** The page's script (pageScript('import-page')). */
  script: string;
}

export function renderImportPage(d: ImportPageData): string {
  const options = d.accounts.map((a) => `<option value="${esc(a)}">${esc(a)}</option>`).join('');
  const encodings = PAGE_ENCODINGS.map((e) => `<option value="${esc(e.label)}">${esc(e.name)}</option>`).join('');
  const id = d.importId;
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Import estimates or bills · buildsync</title>
<style>${IMPORT_PAGE_STYLE}</style></head><body>
<nav><a href="/queues/">Queues</a> · <a href="/budget">Budget</a> · <a href="/export">Export</a></nav>
<h1>Import estimates or bills</h1>
${d.workers === 0 ? '<p class="warn" id="no-worker">No worker is running: the page only queues imports. Start one with <code>buildsync worker</code> before sending.</p>' : ''}
<form id="f" onsubmit="return false">
<fieldset><legend>What to import</legend>
<label class="choice"><input type="radio" name="kind" value="estimates"> Estimates</label>
<label class="choice"><input type="radio" name="kind" value="bills"> Bills</label>
<span class="field"><label for="account">Service account</label> <select id="account">${options}</select></span>
<span class="field"><label for="layout">File layout</label> <select id="layout">
<option value="detect">Detect</option><option value="plain">Plain table</option><option value="quickbooks" data-kind="bills">QuickBooks</option><option value="xero" data-kind="bills">Xero</option><option value="sections">Sections</option>
</select></span>
<p class="note" id="layout-note"></p>
</fieldset>
<fieldset><legend>Upload</legend>
<span class="field"><label for="file">Spreadsheet</label> <input id="file" type="file" accept=".csv,.xlsx,.txt,.tsv"></span>
<button type="button" id="read">Read file</button> <small>.csv or .xlsx, up to ${d.maxUploadMb} MB</small>
<p id="read-msg" class="err" role="alert"></p>
<div id="table-choices" hidden>
<span class="field" id="sheet-field" hidden><label for="sheet">Sheet</label> <select id="sheet"></select></span>
<span class="field"><label for="headerRow">Header row</label> <input id="headerRow" type="number" min="1" step="1" inputmode="numeric"></span>
<span class="field" id="hidden-field" hidden><label for="hidden">Hidden rows</label> <select id="hidden"><option value="stop">Stop</option><option value="include">Include</option><option value="skip">Skip</option></select></span>
<p class="note" id="header-note"></p>
</div>
</fieldset>
<fieldset id="match" hidden><legend>Match columns</legend>
<p class="note done" id="last-note" hidden></p>
<div class="cols" id="cols"></div>
<div id="same" hidden><p class="note">No column gives these: one value for every row.</p><p id="same-fields"></p></div>
<p><span class="field"><label for="dateFormat">Date format</label> <select id="dateFormat"><option value="auto">auto</option><option>YMD</option><option>MDY</option><option>DMY</option></select></span>
<span class="field"><label for="decimal">Decimal separator</label> <select id="decimal"><option value="auto">auto</option><option value=".">. (1,234.50)</option><option value=",">, (1.234,50)</option></select></span>
<span class="field"><label for="encoding">File encoding</label> <select id="encoding"><option value="auto">Detect</option>${encodings}</select></span>
<span class="field"><label for="delimiter">Delimiter</label> <select id="delimiter"><option value="auto">Detect</option><option value=",">,</option><option value=";">;</option><option value="tab">Tab</option><option value="pipe">|</option></select></span>
<span class="field bills-only"><label for="summaryRows">Summary rows</label> <select id="summaryRows"><option value="stop">Stop when found</option><option value="none">None in this file</option></select></span>
<span class="field bills-only"><label for="credits">Credits</label> <select id="credits"><option value="ignore">Ignore</option><option value="negative">Send as negative bills</option></select></span></p>
<p><label class="choice bills-only"><input type="checkbox" id="discounts"> Apply discounts</label> <label class="choice"><input type="checkbox" id="ignoreTax"> Ignore tax</label> <label class="choice"><input type="checkbox" id="amountCurrency"> Amounts already in the account's currency</label></p>
<div id="filldown" hidden><p class="note">Empty cells of a checked column take the value of the row above (as accounting exports write a bill's lines):</p><p id="filldown-boxes"></p></div>
<p><a id="dlmap" class="action" href="#" download="mapping.json">Download mapping</a></p>
<p><span class="field"><label for="savedmap">Saved mapping</label> <input id="savedmap" type="file" accept=".json,application/json"></span> <small>a mapping saved with Download mapping: applies its choices to the controls above</small></p>
<p id="map-msg" class="err" role="alert"></p><p id="map-note"></p>
<section id="vendors" aria-labelledby="vendors-h" hidden><h3 id="vendors-h">Vendors</h3>
<p class="note">The file names its vendors; the service needs each one's vendor ID. IDs you enter are kept in this account's vendor list when you send, for the next file.</p>
<div id="vendor-table" class="scroll" role="region" aria-label="Vendor IDs" tabindex="0"></div>
<p><span class="field"><label for="vendorlist">Vendor list</label> <input id="vendorlist" type="file" accept=".csv,text/csv"></span> <small>a CSV with the columns vendor,vendor_id</small></p>
<p id="vendor-msg" class="err" role="alert"></p>
</section>
<button type="button" id="check">Check</button>
<p id="check-msg" class="err" role="alert"></p>
</fieldset>
<section id="checked" role="region" aria-label="Check result" tabindex="-1" hidden><h2>Check</h2>
<p id="summary"></p><p id="already" hidden></p>
<p id="first-problem" hidden><a id="to-first" class="action" href="#rows" aria-describedby="first-problem-where">First problem</a> <span id="first-problem-where"></span></p>
<section id="ignored" aria-labelledby="ignored-h" hidden><h3 id="ignored-h">Ignored rows</h3><p id="ignored-text"></p><ul id="ignored-list"></ul></section>
<h3>What it will create</h3><div id="records" class="scroll" role="region" aria-label="Records" tabindex="0"></div><p id="records-note" class="note"></p>
<h3>Budget before sending</h3><p id="budget"></p><div id="windows" class="scroll" role="region" aria-label="Budget windows" tabindex="0" hidden></div>
<h3>Rows of the file</h3><p><small>Fix a marked cell in place and press Check again.</small></p>
<p><label class="choice"><input type="checkbox" id="onlybad"> Only rows with problems</label> <label class="choice"><input type="checkbox" id="allcols"> All columns</label> <span id="allcols-note" class="note"></span></p>
<div id="rows" class="scroll" role="region" aria-label="Rows of the file" tabindex="0"></div>
<p class="send"><label class="choice"><input type="checkbox" id="skip"> Skip invalid rows</label> <button type="button" id="send" disabled aria-describedby="send-why">Send</button> <span id="send-why" class="note"></span></p>
<p id="send-msg" class="err" role="alert"></p>
</section>
</form>
<section id="follow" ${id ? '' : 'hidden'}><h2>Progress</h2>
<div role="status" id="status" aria-live="polite" tabindex="-1">${id ? 'loading…' : ''}</div>
<div id="created" class="scroll" role="region" aria-label="Created records" tabindex="0" hidden></div><p id="created-note" class="note"></p>
<p><a id="report" class="action" href="${id ? `/import/report.csv?id=${esc(id)}` : '#'}">Download report</a> · <a id="tofix" class="action" href="${id ? `/import/errors.csv?id=${esc(id)}` : '#'}">Download rows to fix</a></p>
</section>
<script>
${d.script}
</script></body></html>`;
}

function esc(s: string): string {
  return s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}
