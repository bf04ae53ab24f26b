import { PROJECT_FIELD_KINDS } from '../api/project-fields.ts';
import { decodePercentText } from '../csv/project-writer.ts';

/**
 * The columns of `buildsync_projects` (CONTRACT.md §5b): one per field of the seed's section 2.1,
 * in that order and lower case, typed where the seed gives a type and `text` otherwise.
 *
 * - integer → `bigint` (the seed says "integer" without a width; IDs and counts fit a bigint);
 * - number → `numeric`, so that `1234.5` is stored and compared exactly as the service sent it;
 * - boolean → `boolean`;
 * - `LMOD`, `DATE_CREATED` ("ISO 8601 date-time without zone") → `timestamp` (without time zone);
 * - every other string and the nullable fields (types "not shown") → `text`; an object or array
 *   in a nullable field is stored as its JSON text.
 *
 * `SCOPE_OF_WORK` is stored percent-decoded, as the CSV export writes it.
 */
export interface ProjectColumn {
  field: string;
  column: string;
  sqlType: 'bigint' | 'numeric' | 'boolean' | 'timestamp' | 'text';
}

const DATE_TIME_FIELDS = new Set(['LMOD', 'DATE_CREATED']);

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

const SCOPE_OF_WORK = 'SCOPE_OF_WORK';
const COPY_ESCAPE = /[\\\t\n\r]/g;
const COPY_ESCAPES: Record<string, string> = { '\\': '\\\\', '\t': '\\t', '\n': '\\n', '\r': '\\r' };

/**
 * One project as a line of PostgreSQL's COPY text format: tab-separated, `\N` for null, and
 * backslash, tab, LF and CR escaped (PostgreSQL docs, COPY, "Text Format").
 */
export function copyLine(record: Record<string, unknown>): string {
  // The export's sinks see each record one after the other: the table's sink and the change
  // tracker (which hashes this line) share one formatting per record.
  if (record === lastRecord) return lastLine;
  lastLine = formatCopyLine(record);
  lastRecord = record;
  return lastLine;
}

let lastRecord: Record<string, unknown> | undefined;
let lastLine = '';

function formatCopyLine(record: Record<string, unknown>): string {
  let line = '';
  for (let i = 0; i < PROJECT_COLUMNS.length; i++) {
    const { field } = PROJECT_COLUMNS[i]!;
    if (i > 0) line += '\t';
    const value = record[field];
    switch (typeof value) {
      case 'string': {
        const text = field === SCOPE_OF_WORK ? decodePercentText(value) : value;
        // A timestamp column cannot hold '': the service's empty date is stored as null.
        if (text === '' && DATE_TIME_FIELDS.has(field)) line += '\\N';
        else line += text.replace(COPY_ESCAPE, (c) => COPY_ESCAPES[c]!);
        break;
      }
      case 'number':
        line += String(value);
        break;
      case 'boolean':
        line += value ? 't' : 'f';
        break;
      case 'object':
        line += value === null ? '\\N' : JSON.stringify(value).replace(COPY_ESCAPE, (c) => COPY_ESCAPES[c]!);
        break;
      default:
        line += '\\N';
    }
  }
  return `${line}\n`;
}
