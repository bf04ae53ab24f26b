import type { SourceRow } from './types.ts';

/** The rows of `batches`, one at a time (`OpenedTable.rows()`). */
export async function* flatten(batches: AsyncIterable<SourceRow[]>): AsyncGenerator<SourceRow> {
  for await (const batch of batches) yield* batch;
}
