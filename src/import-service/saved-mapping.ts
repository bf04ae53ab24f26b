/**
 * A saved mapping (the CLI's mapping JSON, as `Download mapping` gives it) applied to an upload on
 * the import page (README, The import page, `POST /import/mapping`): checked as the CLI checks
 * `--mapping` (an entry naming a header the file does not have is an error naming the closest
 * one), then every choice it makes returned as the page's choices: the columns, the layout (the
 * preset whose rules it carries, or sections), the options, the `Fill down` boxes, the header row
 * and hidden rows, and its own rules of rows (`rules`: kinds, status, total labels, which the page
 * keeps and sends back, page-state.ts) with the words the page says them in (`rulesText`). A header
 * it does not mention is preselected as a first reading would.
 */
import { errorsFileColumnOf, normalizeHeader, parseMappingFile, resolveColumns } from '../mapping/index.ts';
import { readPage } from './page-reading.ts';
import { knownColumns, mappingLayout, mappingRules, rulesText, type PageState } from './page-state.ts';
import type { ImportKind } from './run-import.ts';

export async function savedMappingChoices(
  file: string,
  uploadName: string,
  kind: ImportKind,
  json: unknown,
  name: string,
  opts: { sheet?: string; state?: Partial<PageState> },
) {
  const mapping = parseMappingFile(json, name);
  const layout = mappingLayout(mapping);
  const known = knownColumns(kind);
  const mentioned = new Set([...Object.keys(mapping.columns), ...mapping.ignore, ...[mapping.kinds?.column, mapping.status?.column].filter((c) => c !== undefined)].map(normalizeHeader));
  // The CLI's strict check of the mapping's entries; headers the mapping leaves out are the page's to choose, not unknown.
  const check = (headers: readonly string[], headerLine: number) => {
    const knownNames = new Set(known.map(normalizeHeader));
    const unmentioned = headers.filter((h) => h.trim() !== '' && errorsFileColumnOf(h) === undefined && !mentioned.has(normalizeHeader(h)) && !knownNames.has(normalizeHeader(h)));
    resolveColumns(headers, known, { ...mapping, ignore: [...mapping.ignore, ...unmentioned] }, uploadName, headerLine, { lenientMapping: false });
  };
  const rules = mappingRules(mapping);
  const state: PageState = {
    kind,
    rules,
    sheet: opts.sheet,
    headerRow: opts.state?.headerRow ?? mapping.headerRow,
    hidden: mapping.hidden ?? opts.state?.hidden,
    encoding: mapping.encoding,
    account: opts.state?.account,
  };
  const reading = await readPage(file, uploadName, state, { saved: { mapping, layout, check } });
  return {
    name,
    columns: reading.columns.map((c) => ({ ...c, fromMapping: mentioned.has(normalizeHeader(c.header)) })),
    layout: reading.layout,
    headerRow: mapping.headerRow ?? null,
    hidden: mapping.hidden ?? 'stop',
    options: reading.options,
    fillDown: reading.fillDown,
    dateFormat: reading.options.dateFormat,
    decimalSeparator: reading.options.decimalSeparator,
    encoding: mapping.encoding,
    constants: mapping.constants,
    rules: rules ?? null,
    rulesText: rulesText(rules),
    messages: reading.messages,
  };
}
