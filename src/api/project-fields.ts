/**
 * The project record's fields in the order of docs/service.md, Project records, with the type seen in a
 * returned record. The export's CSV header is exactly this list (README, Reports, re-runs and `unknown`).
 */
export type ProjectFieldKind = 'integer' | 'number' | 'string' | 'boolean' | 'nullable';

const P = (names: string, kind: ProjectFieldKind) =>
  names.split(/\s+/).filter(Boolean).map((name) => [name, kind] as const);

export const PROJECT_FIELD_KINDS: ReadonlyArray<readonly [string, ProjectFieldKind]> = [
  ...P('ID', 'integer'),
  ...P('NAME', 'string'),
  ...P('CREATED_BY', 'integer'),
  ...P('CREATOR_NAME LMOD DATE_CREATED', 'string'),
  ...P('LMOD_CON_ID', 'integer'),
  ...P('ADDRESS CITY STATE ZIP PROJECT_NUMBER', 'string'),
  ...P('LAT LON', 'number'),
  ...P('COUNTRY_SETTING CURRENCY COMPANY_ID', 'integer'),
  ...P('IS_ARCHIVED IS_INACTIVE IS_TEMPLATE IS_UNGROUPED', 'boolean'),
  ...P('CUSTOM_COLOR SCOPE_OF_WORK PROJECT_NOTES JOBSITE_INSTRUCTIONS', 'string'),
  ...P('TOTAL_TIME', 'integer'),
  ...P('TOTAL_MONEY', 'number'),
  ...P('NUMBERFOLDERS NUMBERIMAGES NUMBERALBUMS NUMBERFILES', 'integer'),
  ...P('PROJECT_TYPE', 'string'),
  ...P('PROJECT_TYPE_CUSTOM', 'integer'),
  ...P('ATTACH_FOLDER_ID PRIMARY_SCHEDULE', 'nullable'),
  ...P('COST_CODE_SET', 'integer'),
  ...P('PROJECT_GROUP PROJECT_STAGE PROJECT_CATEGORY PROJECT_OFFICE PROJECT_DIVISION PROJECT_REGION', 'integer'),
  ...P('PERMISSION_FILES PERMISSION_CALENDAR', 'integer'),
  ...P(
    `PERMISSIONS_TIME PERMISSIONS_TODOS PERMISSIONS_SCHEDULING PERMISSIONS_PUNCHLISTS
     PERMISSIONS_CHANGEORDERS PERMISSIONS_SELECTIONS PERMISSIONS_LOGGING PERMISSIONS_RFIS
     PERMISSIONS_TRANSMITTAL PERMISSIONS_SUBMITTAL PERMISSIONS_ESTIMATING PERMISSIONS_CHECKLISTS`,
    'integer',
  ),
  ...P(
    `ESTIMATE_UNQUALIFIED_COMMITS ESTIMATE_UNQUALIFIED_ACTUALS ESTIMATE_UNQUALIFIED_EXPENSES
     SELECTION_UNQUALIFIED_COMMITS SELECTION_UNQUALIFIED_ACTUALS SELECTION_UNQUALIFIED_EXPENSES
     CHANGE_ORDER_UNQUALIFIED_COMMITS CHANGE_ORDER_UNQUALIFIED_ACTUALS CHANGE_ORDER_UNQUALIFIED_EXPENSES`,
    'nullable',
  ),
];

export const PROJECT_FIELDS: readonly string[] = PROJECT_FIELD_KINDS.map(([n]) => n);
