import { createRequire } from 'node:module';
import { dirname } from 'node:path';
import { createBullBoard } from '@bull-board/api';
import { BullMQAdapter } from '@bull-board/api/bullMQAdapter';
import { ExpressAdapter } from '@bull-board/express';
import type { Job, Queue } from 'bullmq';
import type { Router } from 'express';
import { JobPathRefused, refuseUnscheduledPaths } from './job-paths.ts';

/**
 * bull-board over the given queues, served under `basePath`. Read-only unless `allowActions`:
 * bull-board then answers 405 to every retry, remove, promote, pause, clean and add (its
 * `readOnlyMode` queue option), so a dashboard left open cannot change what the workers do.
 * With actions, job data that bull-board adds or edits passes the schedules' paths (job-paths.ts).
 */
export function boardRouter(queues: Queue[], opts: { basePath: string; allowActions: boolean; budgetPath: string }): Router {
  const server = new BoardServer();
  server.setBasePath(opts.basePath);
  createBullBoard({
    queues: queues.map((q) => new ScheduledPathsAdapter(q, queues, { readOnlyMode: !opts.allowActions })),
    serverAdapter: server,
    options: {
      uiBasePath: uiBasePath(),
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

/**
 * The folder of @bull-board/ui, whose page template and static files the board serves, found as
 * @bull-board/api itself would (from its entry, in node_modules). Bundled into the CLI
 * (bin/build.mjs), bull-board's own lookup (an eval'd `require.resolve`) would start from the
 * bundle's chunk instead, not from its package.
 */
function uiBasePath(): string {
  const fromHere = createRequire(import.meta.url);
  return dirname(createRequire(fromHere.resolve('@bull-board/api')).resolve('@bull-board/ui/package.json'));
}

type ErrorHandler = Parameters<ExpressAdapter['setErrorHandler']>[0];

/**
 * bull-board answers whatever its API throws as an internal server error (its page says so above
 * the message); a refused job is the user's to fix, so its page says "Forbidden" above ours.
 */
class BoardServer extends ExpressAdapter {
  override setErrorHandler(handler: ErrorHandler): this {
    return super.setErrorHandler((err) =>
      err instanceof JobPathRefused ? { status: 403 as const, body: { error: { key: 'ERRORS.FORBIDDEN' }, message: err.message } } : handler(err),
    );
  }
}

/**
 * Every bull-board action that brings job data to a queue goes through its adapter: `addJob`
 * (add, and duplicate with the data edited) and `updateData` of a job the adapter fetched (edit
 * data, then retry). Both check the data first.
 */
class ScheduledPathsAdapter extends BullMQAdapter {
  constructor(
    queue: Queue,
    private readonly scheduled: readonly Queue[],
    options: ConstructorParameters<typeof BullMQAdapter>[1],
  ) {
    super(queue, options);
  }

  override async addJob(name: string, data: unknown, options: Parameters<BullMQAdapter['addJob']>[2]): Promise<Job> {
    await refuseUnscheduledPaths(this.scheduled, name, data);
    return super.addJob(name, data, options);
  }

  override async getJob(id: string): Promise<Job | undefined> {
    const job = await super.getJob(id);
    if (!job) return job;
    const update = job.updateData.bind(job);
    job.updateData = async (data) => {
      await refuseUnscheduledPaths(this.scheduled, job.name, data);
      return update(data);
    };
    return job;
  }
}
