/**
 * Reading GET /api/Projects?skip=&take= (docs/service.md, Projects listing (paged)) page by page while the listing may change
 * underneath: the seed gives no snapshot or cursor, only "skip this many, take that many" over an
 * ordering whose first record is the official My Documents. Two things can go wrong between pages:
 *
 * - Records are added before the read position: the listing shifts forward and the next page
 *   repeats records already read. Every ID yielded is remembered (a Set of 200,000 numbers is a few
 *   MB), so no project is yielded twice.
 * - Records are deleted before the read position: the listing shifts back and, with plain
 *   skip += take, the records that slid across the page boundary would never be read. So pages
 *   overlap: each next page starts `overlap` records before the previous one ended. A shift back of
 *   up to `overlap` records is absorbed by the overlap. A page that holds no record read before
 *   (not even from the overlap) means the listing shifted back by more than that (or ended before
 *   the read position): the reader steps back one stride and reads again, until it finds known
 *   records or reaches skip 0, then goes forward again. A shift back cannot hide records behind
 *   known ones, because deletions do not reorder what remains.
 *
 * The listing ends at the first short or empty page that connects to what was read. Projects
 * created during the listing may or may not appear (no snapshot exists); every project present from
 * start to end appears exactly once.
 */
import { ConfigError } from '../errors/index.ts';
import type { ProjectRecord } from './project-schema.ts';

export type PageReader = (skip: number, take: number) => Promise<ProjectRecord[]>;

/** Overlap between consecutive pages: about 5% of a page, at least one record. */
export function pageOverlap(pageSize: number): number {
  return Math.min(pageSize - 1, Math.max(1, Math.ceil(pageSize / 20)));
}

export async function* readPagedProjects(pageSize: number, readPage: PageReader): AsyncGenerator<ProjectRecord> {
  if (!Number.isInteger(pageSize) || pageSize < 2) {
    throw new ConfigError(`page size must be an integer of at least 2 (pages overlap by one record or more to notice deletions), got ${pageSize}`);
  }
  const stride = pageSize - pageOverlap(pageSize);
  const seen = new Set<number>();
  let skip = 0;
  for (;;) {
    const page = await readPage(skip, pageSize);
    if (skip > 0 && !page.some((p) => seen.has(p.ID))) {
      skip = Math.max(0, skip - stride);
      continue;
    }
    for (const project of page) {
      if (seen.has(project.ID)) continue;
      seen.add(project.ID);
      yield project;
    }
    if (page.length < pageSize) return;
    skip += stride;
  }
}
