import { MAX_CELL_CHARS, MAX_QUOTE, OverlongText, decodeXString, type SharedTexts } from '../xlsx-cell.ts';
import { LimitCounter, type PartOf } from './limits.ts';
import { MAX_RAW_TEXT, XmlText, local, parseXml } from './xml.ts';

/**
 * `xl/sharedStrings.xml`: each `<si>` is the text of its `<t>` elements, plain or in rich-text
 * runs (`<r>`), without the phonetic readings (`<rPh>`) Japanese Excel adds. A string longer than
 * a cell may hold is kept as its first characters only. Their number and their characters are
 * counted as they are read, within the workbook's limits (`limits.ts`).
 */
export async function parseSharedStrings(entry: AsyncIterable<Buffer>, where: PartOf): Promise<SharedTexts> {
  const strings = new PackedTexts();
  const count = new LimitCounter(where, 'sharedStrings');
  const characters = new LimitCounter(where, 'sharedCharacters');
  const xml = new XmlText();
  let text = '';
  let overlong = false;
  let inT = false;
  let inPhonetic = false;
  for await (const events of parseXml(xml.decode(entry), where)) {
    for (const e of events) {
      if (e.eventType === 'text') {
        const cutRun = xml.takeCut();
        if (!inT || inPhonetic) continue;
        if (cutRun) overlong = true;
        if (!overlong) {
          text += e.value;
          if (text.length > MAX_RAW_TEXT) overlong = true;
        }
        continue;
      }
      const name = local(e.value.name);
      if (e.eventType === 'opentag') {
        if (name === 'si') {
          count.add();
          text = '';
          overlong = false;
        } else if (name === 't') inT = !e.value.isSelfClosing;
        else if (name === 'rPh') inPhonetic = !e.value.isSelfClosing;
      } else if (name === 't') inT = false;
      else if (name === 'rPh') inPhonetic = false;
      else if (name === 'si') {
        const s = decodeXString(text);
        characters.add(s.length);
        strings.push(overlong || s.length > MAX_CELL_CHARS ? new OverlongText(s.slice(0, MAX_QUOTE + 1)) : s);
        text = '';
      }
    }
  }
  strings.seal();
  return strings;
}

/** Texts per `PackedTexts` block. */
const PACKED_BLOCK = 4096;

/**
 * The shared strings, packed: each block of `PACKED_BLOCK` texts is one flat string, with the end
 * of each text in it. Why: a workbook of 200,000 rows holds about 600,000 shared strings, which
 * are held while every pass over the sheet reads them. As strings of their own they cost a
 * header each (more than the text of a short one) and, cut from the parser's chunks, could keep
 * those chunks alive; packed, they cost their characters and four bytes. A cell's text is sliced
 * out when the cell is read, and dies with its row.
 */
class PackedTexts implements SharedTexts {
  length = 0;
  readonly #blocks: string[] = [];
  readonly #ends: Uint32Array[] = [];
  readonly #overlong = new Map<number, OverlongText>();
  #pending: string[] = [];

  push(text: string | OverlongText): void {
    if (text instanceof OverlongText) {
      this.#overlong.set(this.length, text);
      this.#pending.push('');
    } else this.#pending.push(text);
    this.length++;
    if (this.#pending.length === PACKED_BLOCK) this.seal();
  }

  /** Packs the texts pushed since the last block; call once more after the last push. */
  seal(): void {
    if (this.#pending.length === 0) return;
    const ends = new Uint32Array(this.#pending.length);
    let at = 0;
    for (let i = 0; i < this.#pending.length; i++) ends[i] = at += this.#pending[i]!.length;
    this.#blocks.push(this.#pending.join(''));
    this.#ends.push(ends);
    this.#pending = [];
  }

  at(index: number): string | OverlongText | undefined {
    if (!(index >= 0 && index < this.length)) return undefined;
    const long = this.#overlong.size > 0 ? this.#overlong.get(index) : undefined;
    if (long !== undefined) return long;
    const block = Math.floor(index / PACKED_BLOCK);
    const ends = this.#ends[block];
    if (ends === undefined) return this.#pending[index - block * PACKED_BLOCK];
    const k = index - block * PACKED_BLOCK;
    return this.#blocks[block]!.slice(k === 0 ? 0 : ends[k - 1], ends[k]);
  }
}
