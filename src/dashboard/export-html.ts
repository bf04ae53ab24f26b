/**
 * The export page's HTML (README, "The export page"): server-rendered, one small inline script.
 * Control names (`Export projects (.xlsx)`, `Export projects (.csv)`, `Download projects`, the
 * `status` region) are the interface tests and users' scripts rely on.
 */

import type { ScheduledExport } from './scheduled-exports.ts';

export function renderExportPage(d: { accounts: string[]; scheduled: ReadonlyMap<string, ScheduledExport> }): string {
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
${scheduled}<script>${SCRIPT}</script>
</body></html>`;
}

/** Starts an export, polls its status into the `status` region, then shows the download link. */
const SCRIPT = String.raw`(function(){
var busy=false, $=function(id){return document.getElementById(id)};
function n(x){return x.toLocaleString('en-US')}
function size(b){return b<1e6?Math.max(1,Math.round(b/1e3))+' KB':(b/1e6).toFixed(1)+' MB'}
function show(r){
  if(r.state==='running'){$('status').textContent='Exporting: '+n(r.projects)+' projects so far';return}
  if(r.state==='done'){$('status').textContent='done: '+n(r.projects)+' projects in '+r.name+' ('+size(r.bytes)+')';return}
  $('status').textContent='failed after '+n(r.projects)+' projects';$('msg').textContent=r.error||'the export failed';
}
function follow(id){
  fetch('/export/status.json?id='+encodeURIComponent(id),{headers:{accept:'application/json'}}).then(function(res){return res.json().then(function(b){return{ok:res.ok,b:b}})}).then(function(x){
    if(!x.ok){$('msg').textContent=x.b.error;end();return}
    show(x.b);
    if(!x.b.done){setTimeout(function(){follow(id)},400);return}
    if(x.b.state==='done'){var a=$('download');a.href='/export/download?id='+encodeURIComponent(id);a.setAttribute('download',x.b.name);a.hidden=false}
    end();
  }).catch(function(e){$('msg').textContent='lost the dashboard: '+e.message;end()});
}
function end(){busy=false;$('xlsx').disabled=false;$('csv').disabled=false}
function start(format){
  if(busy)return;busy=true;$('xlsx').disabled=true;$('csv').disabled=true;
  $('msg').textContent='';$('download').hidden=true;$('status').textContent='Starting the export…';$('status').focus();
  fetch('/export/run',{method:'POST',headers:{'content-type':'application/json'},body:JSON.stringify({format:format,account:$('account').value})})
    .then(function(res){return res.json().then(function(b){return{ok:res.ok,b:b}})})
    .then(function(x){if(!x.ok){$('status').textContent='';$('msg').textContent=x.b.error;end();return}show(x.b);follow(x.b.id)})
    .catch(function(e){$('msg').textContent='lost the dashboard: '+e.message;end()});
}
function account(){var v=$('account').value,all=document.querySelectorAll('[data-account]');for(var i=0;i<all.length;i++)all[i].hidden=all[i].getAttribute('data-account')!==v}
$('account').addEventListener('change',account);account();
$('status').tabIndex=-1;
$('xlsx').addEventListener('click',function(){start('xlsx')});
$('csv').addEventListener('click',function(){start('csv')});
})();
`;

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
