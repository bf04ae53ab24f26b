import { FileError } from '../../errors/index.ts';
import type { CellFormat, WorkbookFacts } from '../types.ts';
import { isDateNumFmt, type CellContext } from '../xlsx-cell.ts';
import { classifyNumFmt } from './number-formats.ts';
import { parseSharedStrings } from './shared-strings.ts';
import { LimitCounter, type PartOf } from './limits.ts';
import { XmlText, local, parseXml, prefixedAttribute, type SaxEvent } from './xml.ts';
import type { Zip, ZipEntry } from './zip.ts';

/*
 * The workbook's package: the parts around its sheets, found through the relationships. What the
 * workbook says about itself and its tabs is read from `xl/workbook.xml` (`WorkbookXml`); what the
 * cells need, from `xl/styles.xml` and `xl/sharedStrings.xml` (the `CellContext`).
 */

// ---------------------------------------------------------------------------------------------
// The workbook

/** What the cells of a sheet need from their workbook. */
export interface SheetContext extends CellContext {
  /** For each cell format (the `s` of a cell), its number format; undefined for General. */
  formats: readonly (CellFormat | undefined)[];
  /** For each cell format, its alignment's indent level (0 when none). */
  indents: readonly number[];
}

/** A workbook opened for reading one of its sheets. */
export interface Workbook {
  sheets: SheetEntry[];
  context: SheetContext;
  /** The workbook's tabs, for a table that reads sheet `name`. */
  facts(name: string): WorkbookFacts;
  wantedSheet(sheet: string | undefined): string | undefined;
  /** The zip entry of sheet `name` (one of `sheets`). */
  sheetPart(name: string): ZipEntry;
  /** The types of the relationships of sheet `name`'s part, and of its drawings' (a chart is drawn on a drawing). */
  relationshipTypes(name: string): Promise<string[]>;
}

/**
 * What several reads of one workbook share (`readXlsx`'s `cache`, one per opened table): the cell
 * context, whose shared strings are most of a big workbook's memory and parsing time, is read
 * once, not once per pass over the sheet.
 */
export interface XlsxCache {
  context?: SheetContext;
}

/**
 * The workbook part (found through `_rels/.rels`), its relationships, `date1904`, the sheets in tab
 * order, and for the cells: the date formats of `xl/styles.xml` and the texts of
 * `xl/sharedStrings.xml` (read whole before any sheet, whatever their place in the zip).
 */
export async function readWorkbook(file: string, zip: Zip, cache?: XlsxCache): Promise<Workbook> {
  const xmlOf = (entry: ZipEntry): AsyncIterable<SaxEvent[]> => parseXml(new XmlText().decode(zip.read(entry)), { file, part: entry.name });
  const rootRels = zip.entry('_rels/.rels');
  const officeDocument = rootRels && (await parseRelationships(xmlOf(rootRels))).find((r) => !r.external && /\/officeDocument$/.test(r.type));
  const workbookPath = officeDocument ? resolvePart('', officeDocument.target) : 'xl/workbook.xml';
  const workbookEntry = zip.entry(workbookPath);
  if (workbookEntry === undefined) {
    throw new FileError(file, `cannot read ${file} as an .xlsx workbook: it is a zip archive without a workbook in it (no ${workbookPath}). Open it in a spreadsheet and save it as .xlsx, or export it as CSV.`);
  }
  const { sheets, date1904, activeTab } = await parseWorkbookXml(xmlOf(workbookEntry), { file, part: workbookEntry.name });
  const relsEntry = zip.entry(relsPathOf(workbookPath));
  const rels = relsEntry ? await parseRelationships(xmlOf(relsEntry)) : [];
  const partOf = (type: string, fallback: string): ZipEntry | undefined => {
    const rel = rels.find((r) => !r.external && r.type.endsWith(`/${type}`));
    return zip.entry(rel ? resolvePart(workbookPath, rel.target) : fallback);
  };
  let context = cache?.context;
  if (context === undefined) {
    const stylesEntry = partOf('styles', 'xl/styles.xml');
    const { dateStyles, formats, indents } = stylesEntry ? await parseCellFormats(xmlOf(stylesEntry)) : { dateStyles: [], formats: [], indents: [] };
    const stringsEntry = partOf('sharedStrings', 'xl/sharedStrings.xml');
    const sharedStrings = stringsEntry ? await parseSharedStrings(zip.read(stringsEntry), { file, part: stringsEntry.name }) : undefined;
    context = { sharedStrings, isDateStyle: (s) => dateStyles[s] === true, date1904, formats, indents };
    if (cache !== undefined) cache.context = context;
  }
  // Looked up by id and by name (never a search per sheet): work grows linearly with the sheets.
  const relById = new Map<string, Relationship>();
  for (const r of rels) if (!relById.has(r.id)) relById.set(r.id, r);
  const relOf = (s: SheetEntry): Relationship | undefined => (s.rId === undefined ? undefined : relById.get(s.rId));
  const worksheets = sheets.filter((s) => {
    const rel = relOf(s);
    return rel !== undefined && /\/worksheet$/.test(rel.type);
  });
  const isWorksheet = new Set(worksheets);
  // Each sheet is a part of its own (a spreadsheet program never writes two tabs over one part):
  // tabs sharing a part would be read, and sent, once per tab.
  const owner = new Map<string, string>();
  for (const s of worksheets) {
    const path = resolvePart(workbookPath, relOf(s)!.target).toLowerCase();
    const other = owner.get(path);
    if (other !== undefined) {
      throw new FileError(file, `cannot read ${file} as an .xlsx workbook: its sheets "${other}" and "${s.name}" are one and the same part (${path}), which no spreadsheet program writes: the workbook is damaged. Open it in Excel or LibreOffice and save it again as .xlsx, or export the sheet as CSV.`);
    }
    owner.set(path, s.name);
  }
  const byName = new Map<string, SheetEntry>();
  const byLowerName = new Map<string, SheetEntry>();
  for (const s of worksheets) {
    if (!byName.has(s.name)) byName.set(s.name, s);
    if (!byLowerName.has(s.name.toLowerCase())) byLowerName.set(s.name.toLowerCase(), s);
  }
  const entryByName = new Map<string, SheetEntry>();
  for (const s of sheets) if (!entryByName.has(s.name)) entryByName.set(s.name, s);
  return {
    sheets,
    context,
    facts: (name) => ({
      sheets: sheets.map((s) => ({ name: s.name, state: s.state === 'hidden' || s.state === 'veryHidden' ? s.state : 'visible', worksheet: isWorksheet.has(s) })),
      activeTab,
      sheet: name,
    }),
    wantedSheet(sheet) {
      if (sheet === undefined) {
        // A hidden sheet (say, the lists behind drop-downs) is not the first one a user sees.
        return (worksheets.find((s) => s.state === undefined || s.state === 'visible') ?? worksheets[0])?.name;
      }
      return (byName.get(sheet) ?? byLowerName.get(sheet.toLowerCase()))?.name;
    },
    async relationshipTypes(name) {
      const rel = relOf(sheets.find((s) => s.name === name)!);
      if (rel === undefined) return [];
      const part = resolvePart(workbookPath, rel.target);
      const types = [rel.type];
      const own = zip.entry(relsPathOf(part));
      for (const r of own === undefined ? [] : await parseRelationships(xmlOf(own))) {
        types.push(r.type);
        if (r.external || !/\/drawing$/.test(r.type)) continue;
        const drawing = zip.entry(relsPathOf(resolvePart(part, r.target)));
        if (drawing !== undefined) for (const d of await parseRelationships(xmlOf(drawing))) types.push(d.type);
      }
      return types;
    },
    sheetPart(name) {
      const rel = relOf(entryByName.get(name)!)!;
      const path = resolvePart(workbookPath, rel.target);
      const entry = zip.entry(path);
      if (entry === undefined) {
        throw new FileError(file, `cannot read ${file} as an .xlsx workbook: sheet "${name}" is missing from it (no ${path}). Open it in a spreadsheet and save it again as .xlsx, or export it as CSV.`);
      }
      return entry;
    },
  };
}

// ---------------------------------------------------------------------------------------------
// Relationships: how one part names another

interface Relationship {
  id: string;
  type: string;
  target: string;
  external: boolean;
}

async function parseRelationships(xml: AsyncIterable<SaxEvent[]>): Promise<Relationship[]> {
  const rels: Relationship[] = [];
  for await (const events of xml) {
    for (const e of events) {
      if (e.eventType !== 'opentag' || local(e.value.name) !== 'Relationship') continue;
      const a = e.value.attributes;
      rels.push({ id: a.Id ?? '', type: a.Type ?? '', target: a.Target ?? '', external: a.TargetMode === 'External' });
    }
  }
  return rels;
}

/** `xl/workbook.xml` → `xl/_rels/workbook.xml.rels`. */
function relsPathOf(part: string): string {
  const slash = part.lastIndexOf('/');
  return `${part.slice(0, slash + 1)}_rels/${part.slice(slash + 1)}.rels`;
}

/** A relationship's target, relative to the part that holds it (or absolute with `/`), as a zip path. */
function resolvePart(from: string, target: string): string {
  const path = target.trim().replace(/\\/g, '/');
  const joined = path.startsWith('/') ? path.slice(1) : from.slice(0, from.lastIndexOf('/') + 1) + path;
  const out: string[] = [];
  for (const segment of joined.split('/')) {
    if (segment === '..') out.pop();
    else if (segment !== '.' && segment !== '') out.push(segment);
  }
  return out.join('/');
}

// ---------------------------------------------------------------------------------------------
// xl/workbook.xml

/** A `<sheet>` of the workbook, in tab order; `state` is `hidden` or `veryHidden` for a hidden tab. */
interface SheetEntry {
  name: string;
  state: string | undefined;
  rId: string | undefined;
}

/** What `xl/workbook.xml` says: the workbook's properties and its sheets. */
interface WorkbookXml {
  sheets: SheetEntry[];
  date1904: boolean;
  /** The first `<workbookView activeTab>` (the window Excel opens), an index into `sheets`. */
  activeTab: number;
}

async function parseWorkbookXml(xml: AsyncIterable<SaxEvent[]>, where: PartOf): Promise<WorkbookXml> {
  const sheets: SheetEntry[] = [];
  const count = new LimitCounter(where, 'sheets');
  let date1904 = false;
  let activeTab: number | undefined;
  for await (const events of xml) {
    for (const e of events) {
      if (e.eventType !== 'opentag') continue;
      const a = e.value.attributes;
      switch (local(e.value.name)) {
        case 'workbookPr':
          date1904 = a.date1904 === '1' || a.date1904 === 'true';
          break;
        case 'workbookView':
          activeTab ??= /^\d+$/.test(a.activeTab ?? '') ? Number(a.activeTab) : 0;
          break;
        case 'sheet':
          count.add();
          sheets.push({ name: a.name ?? '', state: a.state, rId: prefixedAttribute(a, 'id') ?? a.id });
          break;
      }
    }
  }
  return { sheets, date1904, activeTab: activeTab ?? 0 };
}

// ---------------------------------------------------------------------------------------------
// xl/styles.xml

/**
 * For each cell format (`<cellXfs>`, the `s` of a cell): whether it shows numbers as dates, and
 * its number format.
 */
async function parseCellFormats(xml: AsyncIterable<SaxEvent[]>): Promise<{ dateStyles: boolean[]; formats: (CellFormat | undefined)[]; indents: number[] }> {
  const codes = new Map<number, string>();
  const formats: number[] = [];
  /** `<xf><alignment indent="N"/></xf>`: the indent level of each cell format (0 when none). */
  const indents: number[] = [];
  let inNumFmts = false;
  let inCellXfs = false;
  for await (const events of xml) {
    for (const e of events) {
      if (e.eventType === 'text') continue;
      const name = local(e.value.name);
      if (e.eventType === 'closetag') {
        if (name === 'numFmts') inNumFmts = false;
        else if (name === 'cellXfs') inCellXfs = false;
        continue;
      }
      const a = e.value.attributes;
      if (name === 'numFmts') inNumFmts = true;
      else if (name === 'cellXfs') inCellXfs = true;
      else if (name === 'numFmt' && inNumFmts) codes.set(Number(a.numFmtId), a.formatCode ?? '');
      else if (name === 'xf' && inCellXfs) {
        formats.push(Number(a.numFmtId ?? 0));
        indents.push(0);
      } else if (name === 'alignment' && inCellXfs && indents.length > 0) {
        const indent = Number(a.indent ?? 0);
        indents[indents.length - 1] = Number.isInteger(indent) && indent > 0 ? indent : 0;
      }
    }
  }
  return {
    indents,
    dateStyles: formats.map((id) => isDateNumFmt(id, codes.get(id))),
    formats: formats.map((id) => classifyNumFmt(id, codes.get(id))),
  };
}
