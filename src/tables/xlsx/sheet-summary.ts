import type { PartOf } from './limits.ts';
import { XmlText, local, parseXml } from './xml.ts';

/*
 * What a sheet holds, said when no sheet of a workbook qualifies as the table (docs/reading-rules.md
 * ".xlsx sheets"): how many rows hold a value, and whether it holds a pivot table or a chart, read
 * from the sheet's relationships (Excel writes a pivot table's shown cells into the sheet too, and
 * a chart as a drawing beside empty cells). Only read on that stop, for at most 10 sheets.
 */

/** The rows of a sheet part that hold a value (a `<v>` or inline text), counted with the XML parser. */
export async function countFilledRows(part: AsyncIterable<Buffer>, where: PartOf): Promise<number> {
  let rows = 0;
  let filled = false;
  let inRow = false;
  for await (const events of parseXml(new XmlText().decode(part), where)) {
    for (const e of events) {
      if (e.eventType === 'opentag') {
        const name = local(e.value.name);
        if (name === 'row') {
          inRow = !e.value.isSelfClosing;
          filled = false;
        } else if (inRow && (name === 'v' || name === 't') && !e.value.isSelfClosing) filled = true;
      } else if (e.eventType === 'closetag' && local(e.value.name) === 'row' && inRow) {
        inRow = false;
        if (filled) rows++;
      }
    }
  }
  return rows;
}

/** What a sheet's relationship types say it holds beside its cells. */
export function heldBesideCells(types: readonly string[]): { pivot: boolean; chart: boolean } {
  return { pivot: types.some((t) => /\/pivotTable$/.test(t)), chart: types.some((t) => /\/chart$/.test(t)) };
}
