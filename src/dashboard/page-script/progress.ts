/** Send, and the progress of the import sent: the status line, then the table Created. */
import type { Created, ImportStatus } from './answers.ts';
import { $, answer, button, count, input, make, messageOf, post, say } from './dom.ts';
import { S } from './import-state.ts';
import { table } from './table.ts';

/** Results: the table Created, each record as the check named it with the ID the service gave. */
async function showCreated(id: string): Promise<void> {
  const box = $('created');
  try {
    const c = await answer<Created>(await fetch('/import/created.json?id=' + encodeURIComponent(id)));
    box.textContent = '';
    box.hidden = !c.total;
    say('created-note', c.total > c.records.length ? 'The first ' + c.records.length + ' of ' + c.total + ' are listed; Download report has them all.' : '');
    if (!c.total) return;
    const t = table('Created', ['Record', 'ID']);
    c.records.forEach((r) => {
      const tr = make('tr');
      tr.appendChild(make('th', { scope: 'row' }, r.record));
      tr.appendChild(make('td', { class: 'num' }, r.id));
      t.appendChild(tr);
    });
    box.appendChild(t);
  } catch (e) {
    say('created-note', messageOf(e));
  }
}

function statusLine(s: ImportStatus): string {
  const c = s.counts;
  return (
    'import ' +
    s.importId +
    ': ' +
    (s.done ? (s.state === 'failed' ? 'failed: ' + (s.failedReason || '') : 'done') : 'running') +
    ' · created ' +
    c.created +
    ' · exists ' +
    c.exists +
    ' · skipped ' +
    c.skipped +
    ' · failed ' +
    c.failed +
    ' · unknown ' +
    c.unknown +
    ' of ' +
    s.records +
    (s.invalidRows ? ' · ' + count(s.invalidRows, 'invalid row') + ' not sent' : '') +
    (s.done ? '' : ' · ' + s.eta) +
    (s.workers === 0 && !s.done ? ' · no worker is running: start buildsync worker' : '')
  );
}

/** Follows import `id` every second until it is done, then lists what it created. */
export function follow(id: string): void {
  $('follow').hidden = false;
  $<HTMLAnchorElement>('report').href = '/import/report.csv?id=' + encodeURIComponent(id);
  $<HTMLAnchorElement>('tofix').href = '/import/errors.csv?id=' + encodeURIComponent(id);
  const tick = async (): Promise<void> => {
    try {
      const s = await answer<ImportStatus>(await fetch('/import/status.json?id=' + encodeURIComponent(id)));
      $('status').textContent = statusLine(s);
      if (!s.done) setTimeout(tick, 1000);
      else void showCreated(id);
    } catch (e) {
      $('status').textContent = messageOf(e);
      setTimeout(tick, 3000);
    }
  };
  void tick();
}

export function wireSend(): void {
  $('send').addEventListener('click', async () => {
    say('send-msg');
    try {
      const j = await post<{ importId: string; warning?: string }>('/import/send', { upload: S.upload, skipInvalid: input('skip').checked });
      button('send').disabled = true;
      S.checked = false;
      if (j.warning) say('send-msg', 'warning: ' + j.warning);
      history.replaceState(null, '', '/import?id=' + encodeURIComponent(j.importId));
      follow(j.importId);
      $('status').focus();
    } catch (e) {
      say('send-msg', messageOf(e));
    }
  });
}
