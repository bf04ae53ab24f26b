/**
 * The import page's HTML (README, The import page): server-rendered, one small inline script, no
 * framework. Control names are the interface tests and users' scripts rely on.
 */

export interface ImportPageData {
  accounts: string[];
  workers: number;
  importId?: string;
  maxUploadMb: number;
}

export function renderImportPage(d: ImportPageData): string {
  const options = d.accounts.map((a) => `<option value="${esc(a)}">${esc(a)}</option>`).join('');
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Import estimates or bills · buildsync</title>
<style>
/* 390 px wide: nothing wider than the screen (wide tables scroll inside their own region), and
   every control at least 44 px tall (a radio's or checkbox's label is its target). */
*,*::before,*::after{box-sizing:border-box}
body{font:15px/1.45 system-ui,sans-serif;color:#1b1b1b;background:#fff;margin:0 auto;max-width:1100px;padding:1rem;overflow-wrap:anywhere}
h1{font-size:1.4rem}h2{font-size:1.1rem;margin-top:1.5rem}
fieldset{border:1px solid #999;border-radius:6px;margin:.8rem 0;padding:.6rem .9rem;min-width:0}
label{margin-right:1rem}select,input,button{font:inherit;max-width:100%}
select,button,input:not([type=radio]):not([type=checkbox]){min-height:44px}
input[type=file]{padding:.5rem 0}
button{padding:.35rem .9rem;margin:.3rem .3rem .3rem 0}
.choice{display:inline-flex;align-items:center;gap:.4rem;min-height:44px;padding:0 .5rem 0 0;cursor:pointer}
.choice input{width:1.25rem;height:1.25rem;margin:0}
.field{display:inline-flex;flex-wrap:wrap;align-items:center;gap:.3rem .5rem;margin:.2rem 1rem .2rem 0}
.field label{margin:0}
a.action,nav a{display:inline-flex;align-items:center;min-height:44px;padding:0 .2rem}
.cols{display:grid;grid-template-columns:repeat(auto-fill,minmax(min(240px,100%),1fr));gap:.6rem}
.col label{display:block;font-weight:600}.col select{width:100%}.col small{color:#444;display:block;overflow:hidden;text-overflow:ellipsis;white-space:nowrap}
.scroll{overflow-x:auto;max-width:100%;margin:.4rem 0}
.scroll:focus{outline:2px solid #0645ad;outline-offset:2px}
table{border-collapse:collapse;font-size:.9rem}td,th{border:1px solid #bbb;padding:.2rem .4rem;text-align:left;vertical-align:top;overflow-wrap:normal}
#rows td input{min-width:6rem}
td[aria-invalid="true"]{background:#fde2e2;outline:2px solid #b00020}
.msg{display:block;color:#b00020;font-size:.85rem;min-width:14rem;max-width:22rem;white-space:normal;overflow-wrap:anywhere}
.err{color:#b00020}.warn{background:#fff4ce;padding:.4rem .6rem;border-radius:4px}
[role=status]{font-weight:600;background:#eef5ff;padding:.5rem .7rem;border-radius:4px}
caption{text-align:left;font-weight:600;padding:.2rem 0}
#checked:focus,#status:focus{outline:2px solid #0645ad;outline-offset:4px}
#records details{margin:.3rem 0}
summary{display:flex;align-items:center;min-height:44px;cursor:pointer;padding:0 .3rem}
.send{display:flex;flex-wrap:wrap;align-items:center;gap:.5rem 1rem;margin-top:1rem;clear:both}
pre{white-space:pre-wrap;overflow-wrap:anywhere;font-size:.8rem;background:#f5f5f5;padding:.4rem;margin:0}
a{color:#0645ad}
</style></head><body>
<nav><a href="/queues/">Queues</a> · <a href="/budget">Budget</a></nav>
<h1>Import estimates or bills</h1>
${d.workers === 0 ? '<p class="warn" id="no-worker">No worker is running: the page only queues imports. Start one with <code>buildsync worker</code> before sending.</p>' : ''}
<form id="f" onsubmit="return false">
<fieldset><legend>What to import</legend>
<label class="choice"><input type="radio" name="kind" value="estimates"> Estimates</label>
<label class="choice"><input type="radio" name="kind" value="bills"> Bills</label>
<span class="field"><label for="account">Service account</label> <select id="account">${options}</select></span>
</fieldset>
<fieldset><legend>Upload</legend>
<span class="field"><label for="file">Spreadsheet</label> <input id="file" type="file" accept=".csv,.xlsx,.txt,.tsv"></span>
<span class="field"><label for="sheet">Sheet</label> <input id="sheet" list="sheets" placeholder="first sheet" size="14"><datalist id="sheets"></datalist></span>
<button type="button" id="read">Read file</button> <small>up to ${d.maxUploadMb} MB</small>
<p id="read-msg" class="err" role="alert"></p>
</fieldset>
<fieldset id="match" hidden><legend>Match columns</legend>
<div class="cols" id="cols"></div>
<p><span class="field"><label for="dateFormat">Date format</label> <select id="dateFormat"><option value="auto">auto</option><option>YMD</option><option>MDY</option><option>DMY</option></select></span>
<span class="field"><label for="decimal">Decimal separator</label> <select id="decimal"><option value="auto">auto</option><option value=".">. (1,234.50)</option><option value=",">, (1.234,50)</option></select></span>
<a id="dlmap" class="action" href="#" download="mapping.json">Download mapping</a></p>
<p><span class="field"><label for="savedmap">Saved mapping</label> <input id="savedmap" type="file" accept=".json,application/json"></span> <small>a mapping saved with Download mapping (the command line's mapping file too): applies it to the columns above</small></p>
<p id="map-msg" class="err" role="alert"></p><p id="map-note"></p>
<button type="button" id="check">Check</button>
<p id="check-msg" class="err" role="alert"></p>
</fieldset>
<section id="checked" role="region" aria-label="Check result" tabindex="-1" hidden><h2>Check</h2>
<p id="summary"></p><p><small>Fix a marked cell in place and press Check again.</small></p>
<section id="ignored" aria-labelledby="ignored-h" hidden><h3 id="ignored-h">Ignored rows</h3><p id="ignored-text"></p><ul id="ignored-list"></ul></section>
<h3>Budget before sending</h3><p id="budget"></p><div id="windows" class="scroll" role="region" aria-label="Budget windows" tabindex="0" hidden></div>
<div id="rows" class="scroll" role="region" aria-label="Rows of the file" tabindex="0"></div>
<h3>What it will create</h3><div id="records"></div>
<p class="send"><label class="choice"><input type="checkbox" id="skip"> Skip invalid rows</label> <button type="button" id="send" disabled>Send</button></p>
<p id="send-msg" class="err" role="alert"></p>
</section>
</form>
<section id="follow" ${d.importId ? '' : 'hidden'}><h2>Progress</h2>
<div role="status" id="status" aria-live="polite" tabindex="-1">${d.importId ? 'loading…' : ''}</div>
<p><a id="report" class="action" href="${d.importId ? `/import/report.csv?id=${esc(d.importId)}` : '#'}">Download report</a> · <a id="tofix" class="action" href="${d.importId ? `/import/errors.csv?id=${esc(d.importId)}` : '#'}">Download rows to fix</a></p>
</section>
<script>
${SCRIPT}
</script></body></html>`;
}

const SCRIPT = String.raw`
(function(){
var $=function(id){return document.getElementById(id)};
var upload=null, columns=[], known=[], invalid=0, saved={};
function kind(){var r=document.querySelector('input[name=kind]:checked');return r?r.value:null}
function err(el,t){$(el).textContent=t||''}
async function answer(res){var t=await res.text();var j;try{j=JSON.parse(t)}catch(e){j={error:t}}if(!res.ok)throw new Error(j.error||('HTTP '+res.status));return j}
function choices(){var o={};columns.forEach(function(c,i){o[c.header]=$('col'+i).value});return o}
function mapping(){var m={columns:{},ignore:[]};if(saved.constants&&Object.keys(saved.constants).length)m.constants=saved.constants;if(saved.encoding&&saved.encoding!=='auto')m.encoding=saved.encoding;var ch=choices();Object.keys(ch).forEach(function(h){var v=ch[h];if(v==='ignore')m.ignore.push(h);else if(norm(h)!==norm(v))m.columns[h]=v});
 if($('dateFormat').value!=='auto')m.dateFormat=$('dateFormat').value;if($('decimal').value!=='auto')m.decimalSeparator=$('decimal').value;return m}
function norm(s){return s.toLowerCase().replace(/[\s_.\-]/g,'')}
function refreshMap(){var blob=new Blob([JSON.stringify(mapping(),null,2)+'\n'],{type:'application/json'});var a=$('dlmap');if(a.dataset.url)URL.revokeObjectURL(a.dataset.url);a.dataset.url=URL.createObjectURL(blob);a.href=a.dataset.url}
$('read').addEventListener('click',async function(){
 err('read-msg');var f=$('file').files[0];var k=kind();
 if(!k){err('read-msg','Choose Estimates or Bills first.');return}
 if(!f){err('read-msg','Choose a spreadsheet first.');return}
 try{
  var res=await fetch('/import/upload?kind='+k+'&account='+encodeURIComponent($('account').value)+'&sheet='+encodeURIComponent($('sheet').value),{method:'POST',headers:{'Content-Type':'application/octet-stream','X-Filename':encodeURIComponent(f.name)},body:f});
  var j=await answer(res);upload=j.upload;columns=j.columns;known=j.known.map(function(k){return k.name});saved={};err('map-msg');$('map-note').textContent='';$('savedmap').value='';
  var dl=$('sheets');dl.textContent='';(j.sheets||[]).forEach(function(n){var o=document.createElement('option');o.value=n;dl.appendChild(o)});
  if(j.sheets&&j.sheets.length&&!$('sheet').value)$('sheet').value=j.sheets[0];
  var box=$('cols');box.textContent='';
  columns.forEach(function(c,i){var d=document.createElement('div');d.className='col';
   var l=document.createElement('label');l.htmlFor='col'+i;l.textContent=c.header||('(column '+(i+1)+')');
   var s=document.createElement('select');s.id='col'+i;
   [['ignore','Ignore']].concat(known.map(function(k){return [k,k]})).forEach(function(p){var o=document.createElement('option');o.value=p[0];o.textContent=p[1];s.appendChild(o)});
   s.value=c.column;s.addEventListener('change',refreshMap);
   var sm=document.createElement('small');sm.textContent=c.samples.join(' · ');
   d.appendChild(l);d.appendChild(s);d.appendChild(sm);box.appendChild(d)});
  $('match').hidden=false;$('checked').hidden=true;$('send').disabled=true;refreshMap();
 }catch(e){err('read-msg',e.message)}
});
function count(n,word){return n+' '+word+(n===1?'':'s')}
$('dateFormat').addEventListener('change',refreshMap);$('decimal').addEventListener('change',refreshMap);
$('savedmap').addEventListener('change',async function(){
 err('map-msg');$('map-note').textContent='';var f=$('savedmap').files[0];if(!f||!upload)return;
 try{
  var j=await answer(await fetch('/import/mapping',{method:'POST',headers:{'Content-Type':'application/json'},body:JSON.stringify({upload:upload,kind:kind(),sheet:$('sheet').value,name:f.name,text:await f.text()})}));
  var n=0;j.columns.forEach(function(c){var i=columns.findIndex(function(x){return x.header===c.header});if(i>=0){$('col'+i).value=c.column;if(c.fromMapping)n++}});
  $('dateFormat').value=j.dateFormat;$('decimal').value=j.decimalSeparator;saved={constants:j.constants||{},encoding:j.encoding};
  var consts=Object.keys(saved.constants);
  $('map-note').textContent='Applied '+j.name+': '+n+' '+(n===1?'column':'columns')+' from the mapping'+(consts.length?'; constants '+consts.map(function(k){return k+' = '+saved.constants[k]}).join(', '):'')+(saved.encoding?'; encoding '+saved.encoding:'')+'.';
  $('checked').hidden=true;$('send').disabled=true;refreshMap();
 }catch(e){err('map-msg',e.message)}
});
$('check').addEventListener('click',async function(){
 err('check-msg');
 try{
  var edits=[];document.querySelectorAll('#rows input[data-line]').forEach(function(x){if(x.value!==x.dataset.orig)edits.push({line:Number(x.dataset.line),header:x.dataset.header,value:x.value})});
  var j=await answer(await fetch('/import/check',{method:'POST',headers:{'Content-Type':'application/json'},body:JSON.stringify({upload:upload,edits:edits,kind:kind(),account:$('account').value,sheet:$('sheet').value,columns:choices(),dateFormat:$('dateFormat').value,decimalSeparator:$('decimal').value,constants:saved.constants,encoding:saved.encoding})}));
  invalid=j.invalid.length;
  $('summary').textContent=count(j.rows,'row')+': '+count(j.recordCount,kind()==='bills'?'bill':'estimate')+' to create, '+count(invalid,'invalid row')+'.';
  $('budget').textContent=j.budget.text;var wb=$('windows');wb.textContent='';wb.hidden=!j.budget.windows.length;
  if(j.budget.windows.length){var bt=document.createElement('table');var cap=document.createElement('caption');cap.textContent='Every window of the account\'s budget';bt.appendChild(cap);
   var bh=document.createElement('tr');['window','limit','requests needed','left now','ETA under this window alone'].forEach(function(h){var th=document.createElement('th');th.scope='col';th.textContent=h;bh.appendChild(th)});bt.appendChild(bh);
   j.budget.windows.forEach(function(w){var tr=document.createElement('tr');[w.window,w.limit,w.needed,w.remaining,w.eta].forEach(function(v,k){var c=document.createElement(k===0?'th':'td');if(k===0)c.scope='row';c.textContent=String(v);tr.appendChild(c)});bt.appendChild(tr)});wb.appendChild(bt)}
  var bad={};j.invalid.forEach(function(x){bad[x.line]=x.message});
  var t=document.createElement('table');var hr=document.createElement('tr');
  ['line'].concat(j.headers).forEach(function(h){var th=document.createElement('th');th.scope='col';th.textContent=h;hr.appendChild(th)});t.appendChild(hr);
  var firstBad=null;
  // The message sits in the bad cell itself (or, naming no column, in the row's line cell), so
  // that it is seen where the cell is, even on a narrow screen.
  function note(c,msg,id){var sp=document.createElement('span');sp.className='msg';sp.id=id;sp.textContent=msg;c.appendChild(sp);c.setAttribute('aria-invalid','true');c.title=msg;firstBad=firstBad||c}
  j.shown.forEach(function(r){var tr=document.createElement('tr');var msg=bad[r.line];
   var td=document.createElement('th');td.scope='row';td.textContent=r.line;tr.appendChild(td);
   var marked=false;
   j.headers.forEach(function(h,i){var c=document.createElement('td');c.textContent=r.cells[i]==null?'':r.cells[i];
    if(msg&&!marked&&h&&msg.toLowerCase().indexOf(h.toLowerCase())>=0){marked=true;var id='msg-'+r.line;
     if(j.editable){c.textContent='';var inp=document.createElement('input');inp.type='text';inp.value=r.cells[i]==null?'':r.cells[i];inp.setAttribute('aria-label',h+' line '+r.line);inp.setAttribute('aria-invalid','true');inp.setAttribute('aria-describedby',id);inp.dataset.line=r.line;inp.dataset.header=h;inp.dataset.orig=inp.value;inp.size=Math.max(6,inp.value.length+2);c.appendChild(inp)}
     note(c,msg,id)}
    tr.appendChild(c)});
   if(msg&&!marked)note(td,msg,'msg-'+r.line);
   t.appendChild(tr)});
  var rows=$('rows');rows.textContent='';rows.appendChild(t);rows.hidden=!j.shown.length;
  showIgnored(j.ignored,kind());
  var recs=$('records');recs.textContent='';
  j.records.forEach(function(r){var d=document.createElement('details');var s=document.createElement('summary');s.textContent=r.label+' (lines '+r.lines.join(', ')+')';var p=document.createElement('pre');p.textContent=JSON.stringify(JSON.parse(r.payload),null,2);d.appendChild(s);d.appendChild(p);recs.appendChild(d)});
  $('checked').hidden=false;sendState();
  // Focus to the result, and the first bad cell scrolled into the rows' own region.
  $('checked').focus();if(firstBad)rows.scrollLeft=Math.max(0,firstBad.offsetLeft-rows.clientWidth/4);
 }catch(e){err('check-msg',e.message)}
});
var REASONS={title:'title',footer:'footer',total:'total row',heading:'section heading',hidden:'hidden row',kind:'a kind of row that is not imported',credit:'credit, not sent'};
function showIgnored(ig,k){
 var box=$('ignored'),list=$('ignored-list');list.textContent='';box.hidden=!ig||ig.count===0;if(box.hidden)return;
 $('ignored-text').textContent=ig.text+'. These rows are no part of any '+(k==='bills'?'bill':'estimate')+': nothing is sent for them, and there is nothing to fix.'+(ig.count>ig.lines.length?' The first '+ig.lines.length+' are listed.':'');
 ig.lines.forEach(function(l){var li=document.createElement('li');li.textContent='Line '+l.line+': '+(REASONS[l.reason]||l.reason||'ignored')+' \u2014 '+l.message;list.appendChild(li)});
}
function sendState(){$('send').disabled=!upload||(invalid>0&&!$('skip').checked)}
$('skip').addEventListener('change',sendState);
$('send').addEventListener('click',async function(){
 err('send-msg');
 try{var j=await answer(await fetch('/import/send',{method:'POST',headers:{'Content-Type':'application/json'},body:JSON.stringify({upload:upload,skipInvalid:$('skip').checked})}));
  $('send').disabled=true;if(j.warning)$('send-msg').textContent='warning: '+j.warning;history.replaceState(null,'','/import?id='+encodeURIComponent(j.importId));follow(j.importId);$('status').focus();
 }catch(e){err('send-msg',e.message)}
});
function follow(id){
 $('follow').hidden=false;$('report').href='/import/report.csv?id='+encodeURIComponent(id);$('tofix').href='/import/errors.csv?id='+encodeURIComponent(id);
 var tick=async function(){
  try{var s=await answer(await fetch('/import/status.json?id='+encodeURIComponent(id)));var c=s.counts;
   $('status').textContent='import '+s.importId+': '+(s.done?(s.state==='failed'?'failed: '+(s.failedReason||''):'done'):'running')+' · created '+c.created+' · exists '+c.exists+' · skipped '+c.skipped+' · failed '+c.failed+' · unknown '+c.unknown+' of '+s.records+(s.invalidRows?' · '+count(s.invalidRows,'invalid row')+' not sent':'')+(s.done?'':' · '+s.eta)+(s.workers===0&&!s.done?' · no worker is running: start buildsync worker':'');
   if(!s.done)setTimeout(tick,1000);
  }catch(e){$('status').textContent=e.message;setTimeout(tick,3000)}
 };tick();
}
var id=new URLSearchParams(location.search).get('id');if(id)follow(id);
})();
`;

function esc(s: string): string {
  return s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}
