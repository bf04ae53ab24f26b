import { TextDecoder } from 'node:util';
import { SaxesParser } from 'saxes';
import { MAX_CELL_CHARS } from '../xlsx-cell.ts';
import { XLSX_LIMITS, limitPassed, type PartOf } from './limits.ts';

/*
 * The XML of a workbook's parts is parsed with saxes (a dependency of its own, pinned), its
 * callbacks gathered into one batch of events per chunk of text (`parseSax`); the text it is fed is
 * decoded here (`XmlText`), so its chunk-by-chunk decoding never sees bytes.
 */

export interface SaxTag {
  name: string;
  attributes: Record<string, string>;
  isSelfClosing: boolean;
}
export type SaxEvent = { eventType: 'opentag' | 'closetag'; value: SaxTag } | { eventType: 'text'; value: string };

/**
 * saxes' events for `source`, one batch per chunk: `write` emits synchronously, so the batch is
 * complete when it returns, and one yield per chunk keeps the async overhead per chunk, not per
 * event. The end of the text closes the parser, so a part cut short is damage, not a short read.
 */
async function* parseSax(source: AsyncIterable<string>): AsyncGenerator<SaxEvent[]> {
  const parser = new SaxesParser();
  let error: Error | undefined;
  let events: SaxEvent[] = [];
  parser.on('error', (err) => {
    error ??= err;
  });
  parser.on('opentag', (tag) => events.push({ eventType: 'opentag', value: tag as SaxTag }));
  parser.on('text', (text) => events.push({ eventType: 'text', value: text }));
  parser.on('closetag', (tag) => events.push({ eventType: 'closetag', value: tag as SaxTag }));
  for await (const chunk of source) {
    parser.write(chunk);
    if (error) throw error;
    yield events;
    events = [];
  }
  parser.close();
  if (error) throw error;
  if (events.length > 0) yield events;
}

/**
 * The XML of the part `where`, as batches of events (one per chunk of text), its nesting depth
 * bounded (`XLSX_LIMITS.depth`): a chunk is at most tens of kilobytes, so a part nested deeper is
 * refused before saxes has held more than one chunk's worth of open elements. (saxes emits a
 * `closetag` for a self-closing element too, so depth is open tags less close tags.)
 */
export async function* parseXml(text: AsyncIterable<string>, where: PartOf): AsyncGenerator<SaxEvent[]> {
  let depth = 0;
  for await (const events of parseSax(text)) {
    for (let i = 0; i < events.length; i++) {
      const type = events[i]!.eventType;
      if (type === 'opentag') {
        if (++depth > XLSX_LIMITS.depth) throw limitPassed(where, 'depth');
      } else if (type === 'closetag') depth--;
    }
    yield events;
  }
}

/**
 * The longest run of XML between two `<` that is passed to saxes. A cell of `MAX_CELL_CHARS`
 * characters takes at most about 12 characters of XML each (`&#x5F;x000D_`), so a longer run can
 * only be a cell that is too long (or damage); the rest of the run is dropped and the cell refused.
 */
export const MAX_RUN = 12 * (MAX_CELL_CHARS + 1);
/** A cell's text after entity decoding: `_xHHHH_` takes 7 characters for one. */
export const MAX_RAW_TEXT = 7 * (MAX_CELL_CHARS + 1);

/** An element's name without its namespace prefix (`x:c` → `c`: some writers prefix every element). */
export function local(name: string): string {
  const colon = name.indexOf(':');
  return colon < 0 ? name : name.slice(colon + 1);
}

/** The value of attribute `name` whatever its prefix (`r:id`, `ns1:id`). */
export function prefixedAttribute(attributes: Record<string, string>, name: string): string | undefined {
  for (const key of Object.keys(attributes)) if (key.endsWith(`:${name}`)) return attributes[key];
  return undefined;
}

/**
 * Bytes of an XML part to text for saxes: decoded as one stream (a character split across two
 * chunks stays whole), UTF-16 when the part starts with its byte-order mark, invalid UTF-8 refused
 * (never read as U+FFFD); every run of more than `MAX_RUN` characters without a `<` is cut there,
 * and `takeCut()` then tells the consumer that the next text event is such a cut run.
 */
export class XmlText {
  private run = 0;
  private dropping = false;
  private cutPending = false;

  /** True once after a run was cut: the text event that follows is that run. */
  takeCut(): boolean {
    if (!this.cutPending) return false;
    this.cutPending = false;
    return true;
  }

  async *decode(source: AsyncIterable<Buffer | string>): AsyncGenerator<string> {
    let decoder: TextDecoder | undefined;
    for await (const chunk of source) {
      let text: string;
      if (typeof chunk === 'string') text = chunk;
      else {
        decoder ??= new TextDecoder(chunk[0] === 0xff && chunk[1] === 0xfe ? 'utf-16le' : chunk[0] === 0xfe && chunk[1] === 0xff ? 'utf-16be' : 'utf-8', { fatal: true });
        text = decoder.decode(chunk, { stream: true });
      }
      yield* this.limit(text);
    }
    if (decoder) {
      const rest = decoder.decode();
      if (rest) yield* this.limit(rest);
    }
  }

  private *limit(text: string): Generator<string> {
    if (this.dropping) {
      const lt = text.indexOf('<');
      if (lt < 0) return;
      this.dropping = false;
      this.run = 0;
      text = text.slice(lt);
    }
    const lastLt = text.lastIndexOf('<');
    const tail = lastLt < 0 ? this.run + text.length : text.length - lastLt - 1;
    if (tail <= MAX_RUN) {
      this.run = tail;
      if (text) yield text;
      return;
    }
    let at = text.length - (tail - MAX_RUN);
    // Never cut inside an entity (`&amp;`) or a surrogate pair: saxes would refuse the XML.
    const amp = text.lastIndexOf('&', at - 1);
    if (amp >= 0 && amp >= at - 12) {
      const semicolon = text.indexOf(';', amp);
      if (semicolon < 0 || semicolon >= at) at = amp;
    }
    const code = text.charCodeAt(at - 1);
    if (code >= 0xd800 && code <= 0xdbff) at -= 1;
    // The events before the cut run are handled before `cutPending` is set.
    yield text.slice(0, at);
    this.cutPending = true;
    this.dropping = true;
  }
}
