export { PostgresProjectSink, type PostgresSinkOptions, type UpsertCounts } from './postgres.ts';
export { PROJECT_COLUMNS, TABLE as PROJECTS_TABLE, type ProjectColumn } from './columns.ts';
export { base64Bits48, copyLine, copyRow, legacySha1, type CopyRow } from './copy-row.ts';
