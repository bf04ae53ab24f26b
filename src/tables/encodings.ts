// The global TextDecoder is node:util's class; importing it from node:util loaded that module (its
// parse_args, mime) at every start of the CLI, --version too, since the command line checks --encoding.
import type { TextDecoder as NodeTextDecoder } from 'node:util';
/**
 * The encodings a CSV file is read in (docs/reading-rules.md, "Files"), by their WHATWG names:
 * what `--encoding` accepts, how each is named to the user, and how bytes are decoded in one.
 */

/**
 * The encoding a file was read in, as reported in `OpenedTable.encoding`: a WHATWG encoding name
 * (`utf-8`, `utf-16le`, `windows-1250`, `macintosh`, `shift_jis`, …), or `utf-8-bom` for UTF-8
 * that starts with its byte order mark.
 */
export type InputEncoding = string;

/**
 * `--encoding` (mapping key `"encoding"`): `auto` decides from the bytes; anything else is a
 * WHATWG encoding label (`utf8`, `utf16le`, `utf16be` and `cp1252` are accepted as the short
 * names they always were). Checked by `encodingOption`.
 */
export type EncodingOption = string;

/** The short names `--encoding` has always taken, beside the WHATWG labels. */
const SHORT_NAMES: Readonly<Record<string, string>> = { utf8: 'utf-8', utf16le: 'utf-16le', utf16be: 'utf-16be', cp1252: 'windows-1252' };

/**
 * The encodings the import page's `File encoding` offers after `Detect`: the short names
 * `--encoding` has always taken and the single-byte and East Asian encodings spreadsheet programs
 * save CSV in (any other WHATWG label a saved mapping names is offered beside them).
 */
export const PAGE_ENCODINGS: ReadonlyArray<{ label: string; name: string }> = [
  { label: 'utf8', name: 'UTF-8' }, { label: 'utf16le', name: 'UTF-16 LE' }, { label: 'utf16be', name: 'UTF-16 BE' },
  { label: 'cp1252', name: 'Windows-1252 (Western)' }, { label: 'windows-1250', name: 'Windows-1250 (Central European)' },
  { label: 'windows-1251', name: 'Windows-1251 (Cyrillic)' }, { label: 'macintosh', name: 'Mac Roman' },
  { label: 'iso-8859-15', name: 'ISO-8859-15 (Latin-9)' }, { label: 'shift_jis', name: 'Shift_JIS' }, { label: 'gb18030', name: 'GB18030' },
  { label: 'big5', name: 'Big5' }, { label: 'euc-kr', name: 'EUC-KR' },
];

/** What `--encoding` takes, for its help. */
export const ENCODING_HELP = 'auto, utf8, utf16le, utf16be, cp1252, or any WHATWG encoding label (windows-1250, macintosh, shift_jis, …)';

/**
 * The WHATWG encoding an `--encoding` value names (`utf-8`, `windows-1250`), `auto` for auto,
 * or undefined when it names none (or only the replacement encoding, which reads nothing).
 */
export function encodingOf(option: string): string | undefined {
  const label = option.trim().toLowerCase();
  if (label === 'auto') return 'auto';
  const short = SHORT_NAMES[label];
  if (short !== undefined) return short;
  if (label === '') return undefined;
  try {
    return new TextDecoder(label).encoding;
  } catch {
    // Unknown labels and those of the replacement encoding (`iso-2022-kr`, …) throw.
    return undefined;
  }
}

/** Whether `option` is an `--encoding` value buildsync reads (docs/reading-rules.md). */
export function isEncodingOption(option: string): boolean {
  return encodingOf(option) !== undefined;
}

/** The words of the refusal of an `--encoding` value that names no encoding. */
export function unknownEncodingText(option: string): string {
  return `"${option}" is no encoding buildsync reads; give auto, utf8, utf16le, utf16be, cp1252, or a WHATWG encoding label such as windows-1250, macintosh or shift_jis`;
}

const NAMES: Readonly<Record<string, string>> = {
  'utf-8': 'UTF-8',
  'utf-8-bom': 'UTF-8',
  'utf-16le': 'UTF-16 LE',
  'utf-16be': 'UTF-16 BE',
  'windows-1252': 'Windows-1252',
  'windows-1250': 'Windows-1250',
  macintosh: 'Mac Roman',
  shift_jis: 'Shift_JIS',
};

/** How a message and the summary name an encoding: `Mac Roman`, `Windows-1250`, `shift_jis`. */
export function encodingName(encoding: string): string {
  return NAMES[encoding] ?? encoding;
}

/** The `--encoding` value that reads a file in `encoding`, as a message proposes it. */
export function encodingLabel(encoding: string): string {
  return encoding === 'windows-1252' ? 'cp1252' : encoding;
}

/**
 * A decoder of `encoding`. Why a function: Node 20's `TextDecoder('windows-1252')` reads a whole
 * buffer decoded in one call (no `stream`) as ISO-8859-1 (0x80 is U+0080, not €); decoded with
 * `stream: true`, as every caller here does, it is Windows-1252.
 */
export function decoderOf(encoding: string): NodeTextDecoder {
  return new TextDecoder(encoding);
}

/** `bytes` read in `encoding` (the `stream` call `decoderOf` explains). */
export function decodeBytes(encoding: string, bytes: Uint8Array): string {
  const d = decoderOf(encoding);
  return d.decode(bytes, { stream: true }) + d.decode();
}
