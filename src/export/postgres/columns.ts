import { PROJECT_FIELD_KINDS } from '../../api/project-fields.ts';

/**
 * The columns of `buildsync_projects` (docs/data-teams.md): one per field of docs/service.md, Project records,
 * in that order and lower case, typed where the seed gives a type and `text` otherwise.
 *
 * - integer → `bigint` (the seed says "integer" without a width; IDs and counts fit a bigint);
 * - number → `numeric`, so that `1234.5` is stored and compared exactly as the service sent it;
 * - boolean → `boolean`;
 * - `LMOD`, `DATE_CREATED` ("ISO 8601 date-time without zone") → `timestamp` (without time zone);
 * - every other string and the nullable fields (types "not shown") → `text`; an object or array
 *   in a nullable field is stored as its JSON text.
 *
 * `SCOPE_OF_WORK` is stored percent-decoded, as the CSV export writes it (copy-row.ts).
 */
export interface ProjectColumn {
  field: string;
  column: string;
  sqlType: 'bigint' | 'numeric' | 'boolean' | 'timestamp' | 'text';
}

/** The fields stored as `timestamp`; the service's empty date is stored as null. */
export const DATE_TIME_FIELDS: ReadonlySet<string> = new Set(['LMOD', 'DATE_CREATED']);

export const PROJECT_COLUMNS: readonly ProjectColumn[] = PROJECT_FIELD_KINDS.map(([field, kind]) => ({
  field,
  column: field.toLowerCase(),
  sqlType: DATE_TIME_FIELDS.has(field)
    ? 'timestamp'
    : kind === 'integer'
      ? 'bigint'
      : kind === 'number'
        ? 'numeric'
        : kind === 'boolean'
          ? 'boolean'
          : 'text',
}));

export const TABLE = 'buildsync_projects';
