import { createBullBoard } from '@bull-board/api';
import { BullMQAdapter } from '@bull-board/api/bullMQAdapter';
import { ExpressAdapter } from '@bull-board/express';
import type { Queue } from 'bullmq';
import type { Router } from 'express';

/**
 * bull-board over the given queues, served under `basePath`. Read-only unless `allowActions`:
 * bull-board then answers 405 to every retry, remove, promote, pause, clean and add (its
 * `readOnlyMode` queue option), so a dashboard left open cannot change what the workers do.
 */
export function boardRouter(queues: Queue[], opts: { basePath: string; allowActions: boolean; budgetPath: string }): Router {
  const server = new ExpressAdapter();
  server.setBasePath(opts.basePath);
  createBullBoard({
    queues: queues.map((q) => new BullMQAdapter(q, { readOnlyMode: !opts.allowActions })),
    serverAdapter: server,
    options: {
      uiConfig: {
        boardTitle: 'buildsync',
        // bull-board's header menu carries our own page: the budgets and schedules.
        miscLinks: [{ text: 'Budgets and schedules', url: opts.budgetPath }],
        hideDocsLink: true,
      },
    },
  });
  // An express 5 app (the adapter's own express); express 4 mounts it like any sub-app.
  return server.getRouter() as Router;
}
