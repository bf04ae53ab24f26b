/**
 * The options an import reads a file with (`PlanOptions`), made in one place for the CLI's
 * `import` and the import page: the CLI's flags, parsed (`--fill-down`, `--header-row`, the
 * `--mapping` file loaded), or the page's state turned into the same flags and mapping file
 * (`pageImportOptions`, page-state.ts), over the account's reading of dates and amounts
 * (`BUILDSYNC_DATE_FORMAT`, `BUILDSYNC_CURRENCY`). The page's check and Send, the CLI's dry run
 * and import all plan with what this returns.
 */
import type { AccountConfig } from '../config.ts';
import type { CellEdit, PlanOptions } from '../import/index.ts';
import type { DateOrder, MappingFile } from '../mapping/index.ts';
import type { DelimiterOption, EncodingOption, HiddenOption } from '../tables/index.ts';

/** The CLI's `import` flags as values (each undefined when not given), and the page's cells edited in place. */
export interface ImportChoices {
  /** `--mapping`, loaded (or a built-in preset). */
  mapping?: MappingFile;
  sheet?: string;
  hidden?: HiddenOption;
  headerRow?: number;
  fillDown?: string[];
  layout?: 'sections';
  vendorsFile?: string;
  encoding?: EncodingOption;
  delimiter?: DelimiterOption;
  dateFormat?: 'auto' | DateOrder;
  decimalSeparator?: 'auto' | '.' | ',';
  resendUnknown?: boolean;
  credits?: 'negative';
  discounts?: 'apply';
  ignoreTax?: boolean;
  /** The import page's cells edited in place (src/import/cell-edits.ts). */
  cellEdits?: readonly CellEdit[];
}

/** What of the account's configuration a plan reads: the date order and currency of its files. */
export type AccountReading = Pick<AccountConfig, 'dateFormat' | 'dateFormatVariable' | 'currency' | 'currencyVariable'>;

/** The plan options of `choices` for `account` (none: the defaults, as a dry run without configuration reads). */
export function importPlanOptions(choices: ImportChoices, account?: AccountReading, signal?: AbortSignal): PlanOptions {
  const opts: PlanOptions = {
    mapping: choices.mapping,
    sheet: choices.sheet,
    hidden: choices.hidden,
    fillDown: choices.fillDown,
    layout: choices.layout,
    headerRow: choices.headerRow,
    vendorsFile: choices.vendorsFile,
    signal,
    encoding: choices.encoding,
    delimiter: choices.delimiter,
    dateFormat: choices.dateFormat,
    decimalSeparator: choices.decimalSeparator,
    resendUnknown: choices.resendUnknown,
    accountDateFormat: account?.dateFormat,
    dateFormatVariable: account?.dateFormatVariable,
    credits: choices.credits,
    discounts: choices.discounts,
    ignoreTax: choices.ignoreTax,
    accountCurrency: account?.currency,
    currencyVariable: account?.currencyVariable,
    ...(choices.cellEdits !== undefined && choices.cellEdits.length > 0 ? { cellEdits: choices.cellEdits } : {}),
  };
  // Only what is said: an option left undefined is not a key (the page's options travel to its reader thread as JSON).
  for (const k of Object.keys(opts) as Array<keyof PlanOptions>) if (opts[k] === undefined) delete opts[k];
  return opts;
}
