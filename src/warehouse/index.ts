export { PostgresProjectSink, type PostgresSinkOptions, type UpsertCounts } from './postgres.ts';
export { PROJECT_COLUMNS, TABLE as PROJECTS_TABLE, copyLine, type ProjectColumn } from './columns.ts';
