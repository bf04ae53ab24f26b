/**
 * The currency an amount is written in (README, "Amounts the service cannot hold"): a symbol or
 * an ISO 4217 code before or after the digits (`€1,250.00`, `-£12`, `(€1,250.00)`,
 * `1.250,00 €`, `CHF 1'250.00`, `EUR 10`, `10 USD`). This module only reads what is written;
 * whether that currency may be sent is the mapping layer's decision (`amount-rules.ts`).
 */

/*
 * The runtime's currency tables are read on first use, never at load: every CLI start loads this
 * module, and building the `$` list (a NumberFormat per ISO code, ~35 ms of CPU) and the English
 * names (~7 ms) at load was most of a small dry run's own work. An amount written `$` asks
 * whether it may mean the account's currency only (`writtenIn`).
 */

/** ISO 4217 codes the runtime knows (`CHF`, `EUR`, …): three capitals alone are not always a currency. */
let codeSet: ReadonlySet<string> | undefined;
function currencyCodes(): ReadonlySet<string> {
  return (codeSet ??= new Set(Intl.supportedValuesOf('currency')));
}
function isCode(code: string): boolean {
  return currencyCodes().has(code);
}

/** True when the runtime writes `code`'s narrow symbol `$` (USD, CAD, AUD, MXN, ARS, …). */
function writtenDollar(code: string): boolean {
  const parts = new Intl.NumberFormat('en', { style: 'currency', currency: code, currencyDisplay: 'narrowSymbol' }).formatToParts(1);
  return parts.find((p) => p.type === 'currency')?.value === '$';
}

/**
 * `$` is any currency written `$` (README, "Amounts the service cannot hold"): every code whose
 * narrow symbol is `$`, from the runtime's own currency data; USD first, the one a message suggests.
 */
let dollarSign: readonly string[] | undefined;
function dollarCodes(): readonly string[] {
  if (dollarSign === undefined) {
    dollarSign = ['USD', ...currencyCodes()].filter((code, i) => (i === 0 || code !== 'USD') && isCode(code)).filter(writtenDollar);
  }
  return dollarSign;
}

/**
 * Whether `$` may mean `code`, as `dollarCodes().includes(code)` says, without building the list
 * for one code. USD, the account currency of most files written `$`, needs no NumberFormat at
 * all: the first one a process makes costs ~25 ms of CPU (ICU's number data), and USD's narrow
 * symbol is `$` in every CLDR release (test/values-written-currency.test.ts checks the runtime's).
 */
const dollarMeans = new Map<string, boolean>([['USD', true]]);
function dollarMayMean(code: string): boolean {
  if (dollarSign !== undefined) return dollarSign.includes(code);
  let yes = dollarMeans.get(code);
  if (yes === undefined) dollarMeans.set(code, (yes = isCode(code) && writtenDollar(code)));
  return yes;
}

/** The currencies a symbol may mean, but `$` (`dollarCodes`): the file does not say which. */
const SYMBOLS: ReadonlyMap<string, readonly string[]> = new Map([
  ['US$', ['USD']], ['C$', ['CAD']], ['CA$', ['CAD']], ['A$', ['AUD']], ['AU$', ['AUD']], ['NZ$', ['NZD']], ['S$', ['SGD']], ['HK$', ['HKD']],
  ['MX$', ['MXN']], ['Mex$', ['MXN']],
  ['€', ['EUR']], ['£', ['GBP']], ['¥', ['JPY', 'CNY']], ['₹', ['INR']], ['₩', ['KRW']], ['₪', ['ILS']], ['₺', ['TRY']], ['₽', ['RUB']],
  ['R$', ['BRL']], ['zł', ['PLN']], ['kr', ['SEK', 'NOK', 'DKK', 'ISK']], ['Fr.', ['CHF']],
]);

/** The currencies a symbol may mean, `$` included; undefined for no symbol. */
function symbolCodes(symbol: string): readonly string[] | undefined {
  return symbol === '$' ? dollarCodes() : SYMBOLS.get(symbol);
}

/**
 * English names of the ISO 4217 currencies (`US Dollar`, `Euro`, `Canadian Dollar`), as the
 * runtime's own tables name them, compared ignoring case and repeated spaces: name → codes.
 */
let names: ReadonlyMap<string, readonly string[]> | undefined;
function codesNamed(text: string): readonly string[] | undefined {
  if (names === undefined) {
    const display = new Intl.DisplayNames('en', { type: 'currency', fallback: 'none' });
    const out = new Map<string, string[]>();
    for (const code of currencyCodes()) {
      const name = display.of(code);
      if (name === undefined || name === code) continue;
      const key = nameKey(name);
      const list = out.get(key);
      if (list === undefined) out.set(key, [code]);
      else list.push(code);
    }
    names = out;
  }
  return names.get(nameKey(text));
}

function nameKey(text: string): string {
  return text.trim().replace(/\s+/g, ' ').toLowerCase();
}

const SYMBOL = ['$', ...SYMBOLS.keys()].sort((a, b) => b.length - a.length).map((s) => s.replace(/[$.]/g, '\\$&')).join('|');
/** A marker before the digits, after an optional `(` and sign: `(`, `-`, the marker, the rest. */
const LEADING = new RegExp(`^(\\(?\\s*[-+]?)\\s*(${SYMBOL}|[A-Z]{3}(?![A-Za-z]))\\s*(.*)$`, 's');
/** A marker after the digits, before an optional `)`: the digits, the marker, `)`. */
const TRAILING = new RegExp(`^(.*[\\d\\-\\u2013\\u2014])\\s*(${SYMBOL}|(?<![A-Za-z])[A-Z]{3})\\s*(\\)?)$`, 's');

/** An amount's currency as written: `marker` (`€`, `CHF`), the currencies it may mean, and the amount without it. */
export interface WrittenCurrency {
  marker: string;
  /** For `$`, the list is built when first read (`dollarCodes`): ask `writtenIn` whether it may mean one currency. */
  readonly codes: readonly string[];
  /** The text without the marker (`(1,250.00)`, `-12`), for the number reader. */
  amount: string;
}

/**
 * The currency written around an amount, or undefined when none is (plain digits, or text that
 * is no amount at all: the number reader then says what it expected).
 */
export function writtenCurrency(text: string): WrittenCurrency | undefined {
  const s = text.trim();
  if (s === '') return undefined;
  // Most cells are plain numbers: a digit (or a sign and a digit) at both ends has no marker.
  const first = s.charCodeAt(0);
  const last = s.charCodeAt(s.length - 1);
  if (last >= 48 && last <= 57 && ((first >= 48 && first <= 57) || ((first === 45 || first === 46) && s.length > 1 && /\d/.test(s[1]!)))) return undefined;
  const lead = LEADING.exec(s);
  if (lead !== null) return marked(lead[2]!, `${lead[1]!}${lead[3]!}`);
  const trail = TRAILING.exec(s);
  if (trail !== null) return marked(trail[2]!, `${trail[1]!.trimEnd()}${trail[3]!}`);
  return undefined;
}

function marked(marker: string, amount: string): WrittenCurrency | undefined {
  if (marker === '$') {
    return {
      marker,
      get codes() {
        return dollarCodes();
      },
      amount,
    };
  }
  const codes = SYMBOLS.get(marker) ?? (isCode(marker) ? [marker] : undefined);
  return codes === undefined ? undefined : { marker, codes, amount };
}

/**
 * True when what is written may mean `currency` (`written.codes.includes(currency)`): `$` in
 * a dollar account's file, the common case, asks the runtime for that one currency's symbol.
 */
export function writtenIn(written: WrittenCurrency, currency: string): boolean {
  return written.marker === '$' ? dollarMayMean(currency) : written.codes.includes(currency);
}

/**
 * What a currency column's cell names (`EUR`, `eur`, `€`, `Euro`, `US Dollar`): the currencies it
 * may mean, or undefined when it names none.
 */
export function currencyNamed(text: string): readonly string[] | undefined {
  const s = text.trim();
  const code = s.toUpperCase();
  if (/^[A-Z]{3}$/.test(code) && isCode(code)) return [code];
  return symbolCodes(s) ?? codesNamed(s);
}

/**
 * What a cell names when it is evidence that its column holds currencies whatever its header: an
 * ISO 4217 code as the standard writes it (capitals) or an English name; undefined otherwise
 * (`all`, `$`, a number).
 */
export function currencyValue(text: string): readonly string[] | undefined {
  const s = text.trim();
  if (/^[A-Z]{3}$/.test(s)) return isCode(s) ? [s] : undefined;
  return codesNamed(s);
}

/** `dollars` for `$`, the code itself for one currency, `EUR or GBP`-style otherwise: how a message names what was written. */
export function currencyShown(w: { marker: string; codes: readonly string[] }): string {
  if (w.marker === '$') return 'dollars';
  return w.codes.length === 1 ? w.codes[0]! : w.codes.join(' or ');
}
