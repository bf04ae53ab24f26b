/**
 * The import page's script (README, The import page): plain DOM, no framework, no build step.
 * It holds no rule of its own: reading, matching, checking and the words of every message come
 * from the dashboard's answers (src/import-service/), so the page and the CLI cannot disagree.
 * The page state it sends is the one src/import-service/ turns into the CLI's mapping and options.
 */
/** Choosing, reading the file, matching its columns and the vendor table. */
const READ_AND_MATCH = String.raw`
(function(){
var $=function(id){return document.getElementById(id)};
// S.edits: every cell edited in place since the file was read (line and header -> value), sent with every state: a check never forgets one.
var S={upload:null,table:null,columns:[],invalid:0,saved:{},edits:{},headerRowChosen:false,checked:false,mapSeq:0,mapDone:0,mapReady:null,readSeq:0,reading:null};
function kind(){var r=document.querySelector('input[name=kind]:checked');return r?r.value:null}
function say(id,t){$(id).textContent=t||''}
function count(n,word){return n+' '+word+(n===1?'':'s')}
function make(tag,attrs,text){var e=document.createElement(tag);Object.keys(attrs||{}).forEach(function(k){e.setAttribute(k,attrs[k])});if(text!=null)e.textContent=String(text);return e}
function option(sel,value,text){var o=make('option',{value:value},text);sel.appendChild(o);return o}
async function answer(res){var t=await res.text();var j;try{j=JSON.parse(t)}catch(e){j={error:t}}if(!res.ok)throw new Error(j.error||('the dashboard answered '+res.status));return j}
function post(url,body){return fetch(url,{method:'POST',headers:{'Content-Type':'application/json'},body:JSON.stringify(body)}).then(answer)}
function choices(){var o={};S.columns.forEach(function(c,i){o[c.header]=$('col'+i).value});return o}
function fillDown(){var o=[];document.querySelectorAll('#filldown-boxes input:checked').forEach(function(x){o.push(x.value)});return o}
// Every ID typed or loaded that the account's vendor list does not hold (data-orig: the list's), at every check until Send saves them.
function vendorIds(){var o={};document.querySelectorAll('#vendor-table input[data-vendor]').forEach(function(x){if(x.value.trim()!==''&&x.value.trim()!==x.dataset.orig)o[x.dataset.vendor]=x.value.trim()});return o}
function keepEdits(){document.querySelectorAll('#rows input[data-line]').forEach(function(x){if(x.value!==x.dataset.orig){var line=/^\d+$/.test(x.dataset.line)?Number(x.dataset.line):x.dataset.line;S.edits[x.dataset.line+'\u0000'+x.dataset.header]={line:line,header:x.dataset.header,value:x.value}}})}
function edits(){return Object.keys(S.edits).map(function(k){return S.edits[k]})}
/** What the page has chosen, as the dashboard reads it (the CLI's mapping and options). */
function state(){
 var s={upload:S.upload,kind:kind(),account:$('account').value,layout:$('layout').value,sheet:S.table==='xlsx'?$('sheet').value:'',hidden:$('hidden').value,
  dateFormat:$('dateFormat').value,decimalSeparator:$('decimal').value,credits:$('credits').value,discounts:$('discounts').checked,ignoreTax:$('ignoreTax').checked,
  fillDown:fillDown(),vendorIds:vendorIds(),edits:edits()};
 if(S.headerRowChosen&&$('headerRow').value!=='')s.headerRow=Number($('headerRow').value);
 if(S.columns.length)s.columns=choices();
 if(S.saved.constants)s.constants=S.saved.constants;if(S.saved.encoding)s.encoding=S.saved.encoding;if(S.saved.rules)s.rules=S.saved.rules;
 return s}
/** Download mapping: the CLI's mapping file of these choices, as the dashboard writes it. */
function refreshMap(){var n=++S.mapSeq;S.mapReady=(async function(){
 if(!S.upload)return;
 try{var m=await post('/import/mapping.json',state());if(n!==S.mapSeq)return;var a=$('dlmap');if(a.dataset.url)URL.revokeObjectURL(a.dataset.url);
  a.dataset.url=URL.createObjectURL(new Blob([JSON.stringify(m,null,2)+'\n'],{type:'application/json'}));a.href=a.dataset.url}catch(e){say('map-msg',e.message)}finally{if(n===S.mapSeq)S.mapDone=n}})()}
// A click before the latest choices are written waits for them: the file saved is always the one of the choices shown.
$('dlmap').addEventListener('click',function(e){if(S.mapDone!==S.mapSeq||!S.upload){e.preventDefault();if(S.upload)S.mapReady.then(function(){if(S.mapDone===S.mapSeq)$('dlmap').click()})}});
/** A choice changed after a check: the result shown no longer says what Send would do. */
function stale(){if(S.checked){S.checked=false;$('send').disabled=true;say('send-why');say('send-msg','A choice changed since the check: press Check again before sending.')}refreshMap()}
function kindChanged(){
 var k=kind();document.querySelectorAll('.bills-only').forEach(function(e){e.hidden=k!=='bills'});
 var lay=$('layout');Array.prototype.forEach.call(lay.options,function(o){var off=!!o.dataset.kind&&o.dataset.kind!==k;o.hidden=off;o.disabled=off});
 if(lay.selectedOptions[0]&&lay.selectedOptions[0].disabled)lay.value='detect';
 if(S.upload)reread()}
document.querySelectorAll('input[name=kind]').forEach(function(r){r.addEventListener('change',kindChanged)});
function applyReading(j){
 S.upload=j.upload;S.table=j.table;S.columns=j.columns;S.checked=false;if(j.rules)S.saved.rules=j.rules;
 if(j.kept){S.saved.constants=j.kept.constants;if(j.kept.encoding)S.saved.encoding=j.kept.encoding}
 var sh=$('sheet');sh.textContent='';
 if(j.table==='xlsx'){(j.sheets||[]).forEach(function(n){option(sh,n,n)});option(sh,'all','All sheets');sh.value=j.sheet||((j.sheets||[])[0])||''}
 $('sheet-field').hidden=j.table!=='xlsx';
 $('headerRow').value=j.headerRow==null?'':String(j.headerRow);
 $('hidden-field').hidden=!j.hidden&&$('hidden').value==='stop';
 var notes=[];
 if(j.headerRow!=null)notes.push(j.headerFound?'The header row is line '+j.headerRow+'.':'No row has every column this import needs: line '+j.headerRow+' is shown as the header. Choose the header row above, or match the columns below.');
 if(j.hidden)notes.push((j.sheet==='all'?'The sheets have ':'The sheet has ')+count(j.hidden.rows,'hidden row')+' and '+count(j.hidden.columns,'hidden column')+': choose in "Hidden rows" whether to stop, include them or skip them.');
 (j.messages||[]).forEach(function(m){notes.push(m)});
 say('header-note',notes.join(' '));$('table-choices').hidden=false;
 var names={plain:'a plain table',quickbooks:'a QuickBooks export',xero:'a Xero export',sections:'an estimate in sections'};
 say('layout-note',j.layout&&j.layout.chosen==='detect'?'Detect: read as '+(names[j.layout.applied]||j.layout.applied)+(j.layout.detected?' (its header matches).':'.'):'');
 var box=$('cols');box.textContent='';
 j.columns.forEach(function(c,i){var d=make('div',{'class':'col'});
  var l=make('label',{'for':'col'+i},c.header||('(column '+(c.index+1)+')'));var s=make('select',{id:'col'+i});
  option(s,'ignore','Ignore');(j.known||[]).forEach(function(k){option(s,k.name,k.name)});
  s.value=c.column;s.addEventListener('change',stale);d.appendChild(l);d.appendChild(s);
  if(c.role)d.appendChild(make('small',{'class':'role'},c.role==='kind'?'The file layout reads it as the kind of each row (bill, credit, payment…).':'The file layout reads it as each row\'s status (voided rows are ignored).'));
  d.appendChild(make('small',{},(c.samples||[]).join(' · ')));box.appendChild(d)});
 var o=j.options||{};$('dateFormat').value=o.dateFormat||'auto';$('decimal').value=o.decimalSeparator||'auto';$('credits').value=o.credits||'ignore';$('discounts').checked=!!o.discounts;$('ignoreTax').checked=!!o.ignoreTax;
 var fb=$('filldown-boxes');fb.textContent='';
 (j.fillDown||[]).forEach(function(f){var l=make('label',{'class':'choice'});var x=make('input',{type:'checkbox',value:f.column});x.checked=!!f.checked;x.addEventListener('change',stale);l.appendChild(x);l.appendChild(document.createTextNode(' Fill down '+f.column));fb.appendChild(l)});
 $('filldown').hidden=!(j.fillDown||[]).length;
 $('last-note').hidden=!j.lastMapping;say('last-note',j.lastMapping?j.lastMapping.note:'');
 renderVendors(j.vendors);
 $('match').hidden=false;$('checked').hidden=true;$('send').disabled=true;refreshMap()}
// Readings answer in any order: only the latest one counts, and Check waits for it (S.reading).
async function reread(){say('read-msg');var n=++S.readSeq;var p=post('/import/read',state());S.reading=p;
 try{var j=await p;if(n===S.readSeq)applyReading(j)}catch(e){if(n===S.readSeq)say('read-msg',e.message)}finally{if(n===S.readSeq)S.reading=null}}
$('read').addEventListener('click',async function(){
 say('read-msg');var f=$('file').files[0];var k=kind();
 if(!k){say('read-msg','Choose Estimates or Bills first.');return}
 if(!f){say('read-msg','Choose a spreadsheet first.');return}
 try{
  var q='kind='+k+'&account='+encodeURIComponent($('account').value)+'&layout='+encodeURIComponent($('layout').value);
  var j=await answer(await fetch('/import/upload?'+q,{method:'POST',headers:{'Content-Type':'application/octet-stream','X-Filename':encodeURIComponent(f.name)},body:f}));
  S.headerRowChosen=false;S.saved={};S.edits={};S.columns=[];say('map-msg');say('map-note');$('savedmap').value='';$('hidden').value='stop';
  applyReading(j);
 }catch(e){say('read-msg',e.message)}
});
$('layout').addEventListener('change',function(){if(S.upload)reread()});
$('sheet').addEventListener('change',function(){S.headerRowChosen=false;reread()});
$('headerRow').addEventListener('change',function(){if($('headerRow').value==='')return;S.headerRowChosen=true;reread()});
$('hidden').addEventListener('change',reread);
['dateFormat','decimal','credits','discounts','ignoreTax','account'].forEach(function(id){$(id).addEventListener('change',stale)});
$('savedmap').addEventListener('change',async function(){
 say('map-msg');say('map-note');var f=$('savedmap').files[0];if(!f||!S.upload)return;
 try{
  var j=await post('/import/mapping',Object.assign(state(),{name:f.name,text:await f.text()}));
  S.saved={constants:j.constants||{},encoding:j.encoding,rules:j.rules};
  if(j.headerRow!=null&&String(j.headerRow)!==$('headerRow').value){S.headerRowChosen=true;$('headerRow').value=String(j.headerRow)}
  if(j.hidden)$('hidden').value=j.hidden;if(j.layout&&j.layout.chosen)$('layout').value=j.layout.chosen;
  var cols={};j.columns.forEach(function(c){cols[c.header]=c.column});
  var o=j.options||{};var base=state();base.columns=cols;base.dateFormat=o.dateFormat||j.dateFormat||'auto';base.decimalSeparator=o.decimalSeparator||j.decimalSeparator||'auto';
  if(o.credits)base.credits=o.credits;base.discounts=!!o.discounts;base.ignoreTax=!!o.ignoreTax;
  if(j.fillDown)base.fillDown=j.fillDown.filter(function(f){return f.checked}).map(function(f){return f.column});
  applyReading(await post('/import/read',base));
  var n=j.columns.filter(function(c){return c.fromMapping}).length;var consts=Object.keys(S.saved.constants);
  say('map-note','Applied '+j.name+': '+count(n,'column')+' from the mapping'+(consts.length?'; constants '+consts.map(function(k){return k+' = '+S.saved.constants[k]}).join(', '):'')+(S.saved.encoding?'; encoding '+S.saved.encoding:'')+(j.rulesText?'; '+j.rulesText:'')+'.');
 }catch(e){say('map-msg',e.message)}
});
function renderVendors(list){
 var typed={};document.querySelectorAll('#vendor-table input[data-vendor]').forEach(function(x){if(x.value.trim()!==x.dataset.orig)typed[x.dataset.vendor]=x.value});
 list=list||[];var box=$('vendor-table');box.textContent='';$('vendors').hidden=kind()!=='bills'||!list.length;if(!list.length)return;
 var t=make('table');t.appendChild(make('caption',{},'Vendor ID for each vendor name of the file'));
 var hr=make('tr');hr.appendChild(make('th',{scope:'col'},'Vendor in the file'));hr.appendChild(make('th',{scope:'col'},'Vendor ID'));t.appendChild(hr);
 list.forEach(function(v){var tr=make('tr');tr.appendChild(make('th',{scope:'row'},v.name));var td=make('td');
  var x=make('input',{type:'text','aria-label':'Vendor ID for '+v.name,inputmode:'numeric',autocomplete:'off'});x.dataset.vendor=v.name;x.dataset.orig=v.listed!=null?v.listed:(v.vendorId||'');x.value=typed[v.name]!=null?typed[v.name]:(v.vendorId||'');
  if(!x.value)x.setAttribute('aria-invalid','true');x.addEventListener('change',stale);td.appendChild(x);tr.appendChild(td);t.appendChild(tr)});
 box.appendChild(t)}
$('vendorlist').addEventListener('change',async function(){
 say('vendor-msg');var f=$('vendorlist').files[0];if(!f)return;
 var names=[];document.querySelectorAll('#vendor-table input[data-vendor]').forEach(function(x){names.push(x.dataset.vendor)});
 try{var j=await post('/import/vendor-list',{upload:S.upload,name:f.name,text:await f.text(),names:names});var n=0;
  document.querySelectorAll('#vendor-table input[data-vendor]').forEach(function(x){var id=j.ids[x.dataset.vendor];if(id!=null){x.value=id;x.removeAttribute('aria-invalid');n++}});
  say('vendor-msg',j.message||'');stale();
 }catch(e){say('vendor-msg',e.message)}
});
`;

/** The check's result, Send and the progress of the import sent. */
const CHECK_AND_SEND = String.raw`
$('check').addEventListener('click',async function(){
 say('check-msg');say('send-msg');
 // A reading still on its way (a sheet, header row or layout just chosen) is the one checked.
 while(S.reading){try{await S.reading}catch(e){}}
 try{
  keepEdits();
  var j=await post('/import/check',state());
  showCheck(j);
 }catch(e){say('check-msg',e.message)}
});
function showCheck(j){
 var noun=kind()==='bills'?'bill':'estimate';var rows={};j.invalid.forEach(function(x){rows[String(x.line)]=1});S.invalid=Object.keys(rows).length;S.left=j.recordCount;S.already=j.alreadyCreated||0;S.noun=noun;
 say('summary',count(j.rows,'row')+': '+count(j.recordCount,noun)+' to create, '+count(S.invalid,'invalid row')+'.');
 $('already').hidden=!j.alreadyCreated;say('already',j.alreadyCreated?count(j.alreadyCreated,noun)+' already created: this account\'s ledger has '+(j.alreadyCreated===1?'it':'them')+', and Send does not create '+(j.alreadyCreated===1?'it':'them')+' again.':'');
 showRecords(j,noun);showBudget(j.budget);showRows(j);showIgnored(j.ignored,noun);renderVendors(j.vendors);
 // What would stop Send (Redis would not keep the ledger safely) is said now, beside Send, not only when it is pressed.
 var d=j.durability||{};S.refused=d.refused||null;say('send-msg',d.refused?'Send is not possible: '+d.refused:(d.warning?'warning: '+d.warning:''));
 S.checked=true;$('checked').hidden=false;sendState();
 $('checked').focus();var first=document.querySelector('#rows [aria-invalid="true"]');if(first)$('rows').scrollLeft=Math.max(0,first.offsetLeft-$('rows').clientWidth/4)}
function table(caption,heads){var t=make('table');t.appendChild(make('caption',{},caption));var tr=make('tr');heads.forEach(function(h){tr.appendChild(make('th',{scope:'col','class':/^(Lines|Items|Categories|Total)$/.test(h)?'num':''},h))});t.appendChild(tr);return t}
function showRecords(j,noun){
 var box=$('records');box.textContent='';var all=j.recordCount+(j.alreadyCreated||0);
 if(!j.records.length){say('records-note','Nothing: no row of the file makes '+(noun==='bill'?'a bill':'an estimate')+'.');return}
 var bills=noun==='bill';var t=table(bills?'Bills':'Estimates',bills?['Bill','Project','Vendor','Lines','Total','Status']:['Project','Estimate','Categories','Items','Total','Status']);
 j.records.forEach(function(r){var tr=make('tr');var b=r.bill||{},e=r.estimate||{};
  var cells=bills?[b.ref||r.label,b.project,b.vendor,b.lines,b.total]:[e.project,e.name||r.label,e.categories,e.items,e.total];
  cells.forEach(function(v,i){tr.appendChild(make(i===0?'th':'td',i===0?{scope:'row'}:{'class':i>=3||(!bills&&i>=2)?'num':''},v==null?'':v))});
  tr.appendChild(make('td',{},r.status==='created'?'already created':'to create'));t.appendChild(tr)});
 box.appendChild(t);say('records-note',j.records.length<all?'The first '+j.records.length+' of '+all+' are listed.':'')}
function showBudget(b){
 say('budget',b.text);var wb=$('windows');wb.textContent='';wb.hidden=!b.windows.length;if(!b.windows.length)return;
 var t=table('Every window of the account\'s budget',['window','limit','requests needed','left now','ETA under this window alone']);
 b.windows.forEach(function(w){var tr=make('tr');[w.window,w.limit,w.needed,w.remaining,w.eta].forEach(function(v,k){tr.appendChild(make(k===0?'th':'td',k===0?{scope:'row'}:{},v))});t.appendChild(tr)});wb.appendChild(t)}
function showRows(j){
 var bad={};j.invalid.forEach(function(x){(bad[String(x.line)]=bad[String(x.line)]||[]).push(x)});
 var t=table('Rows of the file',['line'].concat(j.headers));
 // Each message sits in its bad cell (or, naming no cell, in the row's line cell): seen where the cell is, even on a narrow screen.
 function note(c,msg,id){c.appendChild(make('span',{'class':'msg',id:id},msg));c.setAttribute('aria-invalid','true');c.title=msg}
 j.shown.forEach(function(r){var tr=make('tr');var probs=bad[String(r.line)]||[];var th=make('th',{scope:'row'},r.line);tr.appendChild(th);var placed={};
  j.headers.forEach(function(h,i){var c=make('td');var v=r.cells[i]==null?'':r.cells[i];var p=probs.filter(function(x){return x.column===h});
   if(p.length&&j.editable){var id='msg-'+r.line+'-'+i;var x=make('input',{type:'text','aria-label':h+' line '+r.line,'aria-invalid':'true','aria-describedby':id,size:String(Math.max(6,v.length+2))});
    x.value=v;x.dataset.line=String(r.line);x.dataset.header=h;x.dataset.orig=v;x.addEventListener('change',stale);c.appendChild(x);note(c,p.map(function(q){return q.message}).join(' '),id)}
   else{c.textContent=v;if(p.length)note(c,p.map(function(q){return q.message}).join(' '),'msg-'+r.line+'-'+i)}
   p.forEach(function(q){placed[j.invalid.indexOf(q)]=true});tr.appendChild(c)});
  var rest=probs.filter(function(q){return !placed[j.invalid.indexOf(q)]});if(rest.length)note(th,rest.map(function(q){return q.message}).join(' '),'msg-'+r.line);
  if(probs.length)tr.dataset.bad='1';t.appendChild(tr)});
 var rows=$('rows');rows.textContent='';rows.appendChild(t);onlyBad()}
function onlyBad(){var on=$('onlybad').checked;document.querySelectorAll('#rows tr').forEach(function(tr,i){if(i>0&&tr.querySelector('td'))tr.hidden=on&&!tr.dataset.bad})}
$('onlybad').addEventListener('change',onlyBad);
// The messages say what each row is; a kind or status of row says why it is not imported.
var REASONS={kind:'a kind of row that is not imported',status:'a status that is not imported'};
function showIgnored(ig,noun){
 var box=$('ignored'),list=$('ignored-list');list.textContent='';box.hidden=!ig||ig.count===0;if(box.hidden)return;
 say('ignored-text',ig.text+'. These rows are no part of any '+noun+': nothing is sent for them, and there is nothing to fix.'+(ig.count>ig.lines.length?' The first '+ig.lines.length+' are listed.':''));
 ig.lines.forEach(function(l){list.appendChild(make('li',{},'Line '+l.line+': '+(REASONS[l.reason]?REASONS[l.reason]+' \u2014 ':'')+l.message))})}
// Nothing left to create (every record already created, or none in the file) and no row to fix
// (sending with Skip invalid rows still writes the rows to fix): Send stays disabled and says why beside it.
function sendState(){var why=S.checked&&S.left===0&&S.invalid===0?(S.already?count(S.already,S.noun)+' of this file '+(S.already===1?'is':'are')+' already created: nothing is left to send.':'No row of the file makes '+(S.noun==='bill'?'a bill':'an estimate')+': nothing to send.'):'';
 say('send-why',why);$('send').disabled=!S.upload||!S.checked||!!S.refused||why!==''||(S.invalid>0&&!$('skip').checked)}
$('skip').addEventListener('change',sendState);
$('send').addEventListener('click',async function(){
 say('send-msg');
 try{var j=await post('/import/send',{upload:S.upload,skipInvalid:$('skip').checked});
  $('send').disabled=true;S.checked=false;if(j.warning)say('send-msg','warning: '+j.warning);history.replaceState(null,'','/import?id='+encodeURIComponent(j.importId));follow(j.importId);$('status').focus();
 }catch(e){say('send-msg',e.message)}
});
/** Results: the table Created, each record as the check named it with the ID the service gave. */
async function showCreated(id){var box=$('created');
 try{var c=await answer(await fetch('/import/created.json?id='+encodeURIComponent(id)));box.textContent='';box.hidden=!c.total;
  say('created-note',c.total>c.records.length?'The first '+c.records.length+' of '+c.total+' are listed; Download report has them all.':'');if(!c.total)return;
  var t=table('Created',['Record','ID']);c.records.forEach(function(r){var tr=make('tr');tr.appendChild(make('th',{scope:'row'},r.record));tr.appendChild(make('td',{'class':'num'},r.id));t.appendChild(tr)});box.appendChild(t)
 }catch(e){say('created-note',e.message)}}
function follow(id){
 $('follow').hidden=false;$('report').href='/import/report.csv?id='+encodeURIComponent(id);$('tofix').href='/import/errors.csv?id='+encodeURIComponent(id);
 var tick=async function(){
  try{var s=await answer(await fetch('/import/status.json?id='+encodeURIComponent(id)));var c=s.counts;
   $('status').textContent='import '+s.importId+': '+(s.done?(s.state==='failed'?'failed: '+(s.failedReason||''):'done'):'running')+' · created '+c.created+' · exists '+c.exists+' · skipped '+c.skipped+' · failed '+c.failed+' · unknown '+c.unknown+' of '+s.records+(s.invalidRows?' · '+count(s.invalidRows,'invalid row')+' not sent':'')+(s.done?'':' · '+s.eta)+(s.workers===0&&!s.done?' · no worker is running: start buildsync worker':'');
   if(!s.done)setTimeout(tick,1000);else showCreated(id);
  }catch(e){$('status').textContent=e.message;setTimeout(tick,3000)}
 };tick()}
kindChanged();
var id=new URLSearchParams(location.search).get('id');if(id)follow(id);
})();
`;

export const IMPORT_PAGE_SCRIPT = READ_AND_MATCH + CHECK_AND_SEND;
