import { formatWait } from '../errors/index.ts';
import type { AccountBudget, BudgetReport, ExportRun, ScheduleRuns } from './budget-data.ts';

/** Seconds between reloads of the page: budgets move with every request the workers send. */
const REFRESH_S = 10;

/**
 * The budget page: plain server-rendered HTML (no script), so it reads the same in a browser,
 * with curl and in a screenshot. Every value from Redis goes through `esc`.
 */
export function renderBudgetPage(report: BudgetReport, links: { board: string; json: string }): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="refresh" content="${REFRESH_S}">
<title>buildsync: budgets and schedules</title>
<style>
body { font: 14px/1.4 system-ui, sans-serif; margin: 1.5rem; color: #1f2937; }
h1 { font-size: 1.3rem; } h2 { font-size: 1.1rem; margin-top: 1.8rem; } h3 { font-size: 1rem; margin: 1rem 0 .3rem; }
table { border-collapse: collapse; margin: .3rem 0 1rem; }
th, td { border: 1px solid #d1d5db; padding: .25rem .6rem; text-align: left; }
th { background: #f3f4f6; } td.n { text-align: right; font-variant-numeric: tabular-nums; }
.paused { color: #b45309; font-weight: 600; } .failed { color: #b91c1c; } .muted { color: #6b7280; }
nav a { margin-right: 1rem; }
</style>
</head>
<body>
<nav><a href="${esc(links.board)}">Queues (bull-board)</a><a href="${esc(links.json)}">budget.json</a></nav>
<h1>Budgets and schedules</h1>
<p class="muted">prefix <code>${esc(report.prefix)}</code> · read at ${esc(report.at)} · reloads every ${REFRESH_S} s</p>
<h2>Rate budgets</h2>
${report.accounts.map(accountSection).join('\n')}
<h2>Schedules</h2>
${report.schedules.length ? report.schedules.map(scheduleSection).join('\n') : '<p class="muted">No schedules. Add one with <code>buildsync schedule export-projects --cron "0 2 * * *"</code>.</p>'}
<h2>Latest exports</h2>
${report.exports.length ? runsTable(report.exports, true) : '<p class="muted">No finished exports yet.</p>'}
</body>
</html>
`;
}

function accountSection(a: AccountBudget): string {
  const head = `<h3 id="account-${esc(a.account)}">Account ${esc(a.account)}</h3>`;
  if (a.error) return `${head}\n<p class="failed">${esc(a.error)}</p>`;
  const state = a.reason
    ? `<p class="paused">${esc(a.reason)}${a.pausedUntil ? ` (until ${esc(a.pausedUntil)})` : ''}</p>`
    : '<p>Sending: no pause.</p>';
  if (!a.windows.length) return `${head}\n${state}\n<p class="muted">No limited windows (${esc(a.limits || 'none')}): only the service's 429s pace this account.</p>`;
  const rows = a.windows
    .map(
      (w) => `<tr data-window="${esc(w.window)}"><td>${esc(w.window)}</td><td class="n">${w.limit}</td><td class="n">${w.used}</td><td class="n">${w.remaining}</td>`
        + `<td class="n">${w.configured ?? '<span class="muted">none</span>'}</td>`
        + `<td>${w.learned ? `${w.learned.limit} <span class="muted">(learned ${esc(w.learned.at)})</span>` : '<span class="muted">none</span>'}</td>`
        + `<td>${w.resetInMs ? esc(formatWait(w.resetInMs)) : '<span class="muted">nothing counted</span>'}</td></tr>`,
    )
    .join('\n');
  return `${head}
${state}
<table class="budget" data-account="${esc(a.account)}">
<tr><th>window</th><th>limit</th><th>used</th><th>remaining</th><th>configured</th><th>learned from 429s</th><th>oldest request leaves in</th></tr>
${rows}
</table>`;
}

function scheduleSection(s: ScheduleRuns): string {
  const when = s.pattern ? `cron <code>${esc(s.pattern)}</code>${s.tz ? ` (${esc(s.tz)})` : ''}` : `every ${esc(formatWait(s.every ?? 0))}`;
  return `<h3>Schedule ${esc(s.name)}</h3>
<p>${when} · next run ${esc(s.next ?? 'none')} · ${s.iterations} runs so far${s.outDir ? ` · writes to <code>${esc(s.outDir)}</code>` : ''}</p>
${s.lastRuns.length ? runsTable(s.lastRuns, false) : '<p class="muted">No finished runs yet.</p>'}`;
}

function runsTable(runs: ExportRun[], withSchedule: boolean): string {
  const rows = runs
    .map(
      (r) => `<tr><td>${esc(r.jobId)}</td>${withSchedule ? `<td>${esc(r.schedule ?? '(one-off)')}</td>` : ''}`
        + `<td class="${r.state === 'failed' ? 'failed' : ''}">${r.state}</td><td>${esc(r.finishedAt ?? '')}</td>`
        + `<td>${r.state === 'completed' ? `<code>${esc(r.path ?? '')}</code>${r.projects !== null ? ` (${r.projects} projects)` : ''}` : `<span class="failed">${esc(r.failedReason ?? '')}</span>`}</td></tr>`,
    )
    .join('\n');
  return `<table class="runs">
<tr><th>job</th>${withSchedule ? '<th>schedule</th>' : ''}<th>state</th><th>finished</th><th>result</th></tr>
${rows}
</table>`;
}

export function esc(value: string): string {
  return value.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}
