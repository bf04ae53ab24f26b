/**
 * The parts of the export's workbook besides its sheet (ECMA-376 Part 1, SpreadsheetML): small,
 * fixed, written whole. The sheet itself is streamed (sheet-rows.ts).
 */

/** The cell formats (`s` attribute) of `xl/styles.xml`'s `cellXfs`. */
export const STYLE = {
  normal: 0,
  /** The header row: bold. */
  header: 1,
  /** numFmtId 164, `yyyy-mm-dd hh:mm`: the listing's date-times. */
  dateTime: 2,
} as const;

export const SHEET_NAME = 'Projects';
export const SHEET_PATH = 'xl/worksheets/sheet1.xml';

const DECL = '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n';
const MAIN = 'http://schemas.openxmlformats.org/spreadsheetml/2006/main';
const REL = 'http://schemas.openxmlformats.org/officeDocument/2006/relationships';
const PKG_REL = 'http://schemas.openxmlformats.org/package/2006/relationships';
const CT = 'application/vnd.openxmlformats-officedocument.spreadsheetml';

/** Written before the sheet, so that a reader streaming the zip finds the workbook's frame first. */
export function leadingParts(): [string, string][] {
  return [
    [
      '[Content_Types].xml',
      `${DECL}<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">` +
        '<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/>' +
        '<Default Extension="xml" ContentType="application/xml"/>' +
        `<Override PartName="/xl/workbook.xml" ContentType="${CT}.sheet.main+xml"/>` +
        `<Override PartName="/${SHEET_PATH}" ContentType="${CT}.worksheet+xml"/>` +
        `<Override PartName="/xl/styles.xml" ContentType="${CT}.styles+xml"/>` +
        '</Types>',
    ],
    ['_rels/.rels', `${DECL}<Relationships xmlns="${PKG_REL}"><Relationship Id="rId1" Type="${REL}/officeDocument" Target="xl/workbook.xml"/></Relationships>`],
    [
      'xl/_rels/workbook.xml.rels',
      `${DECL}<Relationships xmlns="${PKG_REL}">` +
        `<Relationship Id="rId1" Type="${REL}/worksheet" Target="worksheets/sheet1.xml"/>` +
        `<Relationship Id="rId2" Type="${REL}/styles" Target="styles.xml"/>` +
        '</Relationships>',
    ],
    [
      'xl/styles.xml',
      `${DECL}<styleSheet xmlns="${MAIN}">` +
        '<numFmts count="1"><numFmt numFmtId="164" formatCode="yyyy\\-mm\\-dd\\ hh:mm"/></numFmts>' +
        '<fonts count="2"><font><sz val="11"/><name val="Calibri"/><family val="2"/></font><font><b/><sz val="11"/><name val="Calibri"/><family val="2"/></font></fonts>' +
        '<fills count="2"><fill><patternFill patternType="none"/></fill><fill><patternFill patternType="gray125"/></fill></fills>' +
        '<borders count="1"><border><left/><right/><top/><bottom/><diagonal/></border></borders>' +
        '<cellStyleXfs count="1"><xf numFmtId="0" fontId="0" fillId="0" borderId="0"/></cellStyleXfs>' +
        '<cellXfs count="3">' +
        '<xf numFmtId="0" fontId="0" fillId="0" borderId="0" xfId="0"/>' +
        '<xf numFmtId="0" fontId="1" fillId="0" borderId="0" xfId="0" applyFont="1"/>' +
        '<xf numFmtId="164" fontId="0" fillId="0" borderId="0" xfId="0" applyNumberFormat="1"/>' +
        '</cellXfs>' +
        '<cellStyles count="1"><cellStyle name="Normal" xfId="0" builtinId="0"/></cellStyles>' +
        '</styleSheet>',
    ],
  ];
}

/**
 * `xl/workbook.xml`, written after the sheet: the autofilter's defined name (which Excel keeps
 * beside the sheet's `<autoFilter>`) needs the last row.
 */
export function workbookPart(filterRange: string): [string, string] {
  return [
    'xl/workbook.xml',
    `${DECL}<workbook xmlns="${MAIN}" xmlns:r="${REL}">` +
      '<bookViews><workbookView/></bookViews>' +
      `<sheets><sheet name="${SHEET_NAME}" sheetId="1" r:id="rId1"/></sheets>` +
      `<definedNames><definedName name="_xlnm._FilterDatabase" localSheetId="0" hidden="1">${SHEET_NAME}!${filterRange}</definedName></definedNames>` +
      '</workbook>',
  ];
}
