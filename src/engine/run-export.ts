import type { ServiceClient } from '../api/index.ts';
import { exportProjects, type ExportFormat, type ExportResult, type MyDocumentsMode } from './export-projects.ts';

export interface ProjectExportSpec {
  /** `v2`: GET /api/v2/Projects, streamed (seed §4.2); `paged`: GET /api/Projects?skip&take (seed §4.1). */
  source: 'v2' | 'paged';
  includeClientSub: boolean;
  pageSize: number;
  format: ExportFormat;
  myDocuments: MyDocumentsMode;
  out: string;
}

/** The listing an export reads. The paged listing has no includeClientSub (seed §4.1 scope: client/sub projects included). */
export function projectSource(client: ServiceClient, spec: ProjectExportSpec, signal?: AbortSignal): AsyncIterable<Record<string, unknown>> {
  return spec.source === 'v2'
    ? client.listProjectsV2({ includeClientSub: spec.includeClientSub, signal })
    : client.listProjectsPaged({ pageSize: spec.pageSize, signal });
}

/** Lists every visible project and writes the export file (complete, or not at all). */
export function runExport(
  client: ServiceClient,
  spec: ProjectExportSpec,
  opts: { signal?: AbortSignal; onProgress?: (p: { projects: number; bytes: number }) => void } = {},
): Promise<ExportResult> {
  return exportProjects(projectSource(client, spec, opts.signal), {
    out: spec.out,
    format: spec.format,
    myDocuments: spec.myDocuments,
    signal: opts.signal,
    onProgress: opts.onProgress,
  });
}
