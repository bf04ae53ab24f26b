/**
 * The import page's upload limits by default (`--max-upload-mb`, `--max-uploads-total-mb`): the
 * one home of both numbers, for the command's flags (src/cli/program/dashboard.ts, light: no
 * imports) and the page (upload-store.ts `IMPORT_PAGE_DEFAULTS`).
 */
export const UPLOAD_LIMITS = {
  /** `--max-upload-mb`: the largest file the import page accepts, in MB. */
  maxUploadMb: 50,
  /** `--max-uploads-total-mb`: every kept upload together, in MB. */
  maxUploadsTotalMb: 2048,
} as const;
