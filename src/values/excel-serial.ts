/**
 * Excel's serial day numbers: the one conversion of a serial to a date, for the .xlsx reader
 * (date-formatted cells) and the mapping layer (a General-formatted number in a date column).
 *
 * A workbook counts days in one of two date systems (`<workbookPr date1904="1"/>` says which):
 * in the 1900 system (Windows Excel's default) serial 25569 is 1970-01-01; in the 1904 system
 * (old Mac Excel's) serial 0 is 1904-01-01, so the same serial is 1462 days later. Reading a 1904
 * serial in the 1900 system puts every date four years and a day early.
 *
 * Excel's 1900 system has a 29 February 1900 (a leap-year bug kept from Lotus 1-2-3): serial 60
 * is that day, which never was, and the serials before it count from 1899-12-31, one day later
 * than the ones from 61 (1900-03-01) on. The reader and the export's writer both follow Excel
 * here: serial 1 is 1900-01-01, 59 is 1900-02-28, 61 is 1900-03-01, and serial 60 is no date (a
 * date cell holding it is a row error naming the cell, `isFictitiousLeapDay`). The 1904 system
 * has no such day.
 */

/** Serial of 1970-01-01 in the 1900 date system. */
const UNIX_EPOCH_1900 = 25569;
/** Days from the 1900 system's day 0 to the 1904 system's day 0. */
const DAYS_1900_TO_1904 = 1462;
/** Serial of 9999-12-31, the last date Excel shows, in the 1900 date system. */
const LAST_DAY_1900 = 2_958_465;
const MS_PER_DAY = 86_400_000;
/** Serial 60 of the 1900 system: Excel's 1900-02-29, a day that never was. */
const FICTITIOUS_LEAP_DAY = 60;

/**
 * A serial day count (its fraction the time of day) to a `Date` whose UTC fields are the
 * wall-clock time, the convention exceljs uses (`utils.excelToDate`).
 */
export function excelSerialToDate(serial: number, date1904: boolean): Date {
  // Serials 1 to 59 of the 1900 system count from 1899-12-31 (the fictitious 1900-02-29 is not among them).
  const early = !date1904 && serial >= 1 && serial < FICTITIOUS_LEAP_DAY ? 1 : 0;
  return new Date(Math.round((serial + early - UNIX_EPOCH_1900 + (date1904 ? DAYS_1900_TO_1904 : 0)) * MS_PER_DAY));
}

/** Whether a date cell's serial is Excel's 1900-02-29 (any time of it), a day that never was: the 1900 system's serial 60. */
export function isFictitiousLeapDay(serial: number, date1904: boolean): boolean {
  return !date1904 && serial >= FICTITIOUS_LEAP_DAY && serial < FICTITIOUS_LEAP_DAY + 1;
}

/**
 * The 1900 system's serial of a wall-clock moment, given as days from 1970-01-01 (the fraction
 * its time of day), as Excel writes it: 1900-03-01 is 61, 1900-02-28 is 59, 1900-01-01 is 1.
 * Undefined before 1900-01-01, which Excel does not show as a date.
 */
export function serialOfDays1970(days: number): number | undefined {
  const serial = days + UNIX_EPOCH_1900;
  if (serial >= FICTITIOUS_LEAP_DAY + 1) return serial;
  return serial - 1 >= 1 ? serial - 1 : undefined;
}

/** The serial of 9999-12-31 in the date system: no later day is a date. */
export function lastSerialDay(date1904: boolean): number {
  return LAST_DAY_1900 - (date1904 ? DAYS_1900_TO_1904 : 0);
}

/**
 * Whether a date- or time-formatted cell's number is a moment Excel shows as one: from day 0
 * (a time alone) up to the end of 9999-12-31.
 */
export function isSerialMoment(serial: number, date1904: boolean): boolean {
  return serial >= 0 && serial < lastSerialDay(date1904) + 1;
}

/**
 * Whether a plain number is a day a date column can mean: from the system's first day (serial 1,
 * 1900-01-01, in the 1900 system; serial 0, 1904-01-01, in the 1904 system) up to 9999-12-31.
 */
export function isSerialDay(serial: number, date1904: boolean): boolean {
  return Number.isFinite(serial) && serial >= (date1904 ? 0 : 1) && serial <= lastSerialDay(date1904);
}
