/**
 * One project record (docs/service.md, Project records), generated from (dataset seed, entry.gen). Fields appear in the
 * seed's order. Records are about 2 KB of JSON, like the real service's, so the benchmark's
 * 200,000 projects weigh about 400 MB.
 */
import type { ProjectEntry } from './dataset.ts';
import { createRng, mix32, type Rng } from './random.ts';
import {
  BUILDING_WORDS, CITIES, COLORS, ENCODED_SCOPE_ITEMS, ENCODED_SCOPE_PARAGRAPHS, ENCODED_UL_CLOSE,
  ENCODED_UL_OPEN, FIRST_NAMES, JOBSITE_SENTENCES, LAST_NAMES, NOTE_SENTENCES, PLACE_WORDS,
  PROJECT_TYPES, STREETS, WORK_WORDS,
} from './text-pools.ts';
import { userById } from './users.ts';

const DAY = 86_400_000;
const START = Date.UTC(2019, 0, 2);
const END = Date.UTC(2025, 8, 30);

/**
 * ASP.NET-style local date-time: no zone, fractional seconds only when non-zero and without
 * trailing zeros (e.g. 2024-03-05T14:07:09.37).
 */
export function formatServiceDate(ms: number): string {
  const iso = new Date(ms).toISOString(); // 2024-03-05T14:07:09.370Z
  const fraction = iso.slice(20, 23).replace(/0+$/, '');
  return fraction ? `${iso.slice(0, 19)}.${fraction}` : iso.slice(0, 19);
}

function staffName(userId: number): string {
  const user = userById(userId);
  if (user) return user.name;
  return `${FIRST_NAMES[userId % FIRST_NAMES.length]} ${LAST_NAMES[(userId * 7 + 3) % LAST_NAMES.length]}`;
}

/** Company staff IDs: 5001.. for company 1, 6001.. for company 2, 7001.. for company 3. */
function staffOf(companyId: number, rng: Rng): number {
  return 4000 + companyId * 1000 + rng.int(1, 8);
}

function sentences(rng: Rng, pool: readonly string[], count: number, sep: string): string {
  const out: string[] = [];
  for (let i = 0; i < count; i++) out.push(rng.pick(pool));
  return out.join(sep);
}

function permissions(rng: Rng): number {
  return rng.pick([0, 1, 2, 3, 3, 3]);
}

export function generateProject(entry: ProjectEntry, seed: number): Record<string, unknown> {
  const rng = createRng(mix32(seed, entry.gen));
  const record = entry.kind === 'my-documents' ? myDocumentsRecord(entry, rng) : projectRecord(entry, rng);
  return entry.overrides ? Object.assign(record, entry.overrides) : record;
}

function projectRecord(e: ProjectEntry, rng: Rng): Record<string, unknown> {
  const name = e.specialName ?? `${rng.pick(PLACE_WORDS)} ${rng.pick(BUILDING_WORDS)} ${rng.pick(WORK_WORDS)}`;
  const created = START + Math.floor(rng.next() * (END - START - 400 * DAY));
  const modified = created + Math.floor(rng.next() * 400 * DAY);
  const creator = staffOf(e.companyId, rng);
  const editor = rng.chance(0.5) ? creator : staffOf(e.companyId, rng);
  const city = rng.pick(CITIES);
  const hasAddress = rng.chance(0.9);
  const suite = rng.chance(0.3) ? `, Suite ${rng.int(100, 450)}` : ''; // commas inside ADDRESS
  const year = new Date(created).getUTCFullYear();
  const type = rng.pick(PROJECT_TYPES);

  let scope = encodeURIComponent(`<h3>Scope of work — ${name}</h3>`) + ENCODED_UL_OPEN;
  for (let i = rng.int(2, 3); i > 0; i--) scope += rng.pick(ENCODED_SCOPE_ITEMS);
  scope += ENCODED_UL_CLOSE + rng.pick(ENCODED_SCOPE_PARAGRAPHS);

  const canadian = e.companyId === 3;
  return {
    ID: e.id,
    NAME: name,
    CREATED_BY: creator,
    CREATOR_NAME: staffName(creator),
    LMOD: formatServiceDate(modified),
    DATE_CREATED: formatServiceDate(created),
    LMOD_CON_ID: editor,
    ADDRESS: hasAddress ? `${rng.int(10, 9800)} ${rng.pick(STREETS)}${suite}` : '',
    CITY: hasAddress ? city.city : '',
    STATE: hasAddress ? city.state : '',
    ZIP: hasAddress ? String(city.zip + rng.int(0, 40)).padStart(5, '0') : '',
    PROJECT_NUMBER: rng.chance(0.85) ? `P-${year}-${String(e.gen).padStart(4, '0')}` : '',
    LAT: Math.round((city.lat + (rng.next() - 0.5) * 0.2) * 1e6) / 1e6,
    LON: Math.round((city.lon + (rng.next() - 0.5) * 0.2) * 1e6) / 1e6,
    COUNTRY_SETTING: canadian ? 2 : 1,
    CURRENCY: canadian ? 2 : 1,
    COMPANY_ID: e.companyId,
    IS_ARCHIVED: e.status === 'archived',
    IS_INACTIVE: e.status === 'inactive',
    IS_TEMPLATE: e.status === 'template',
    IS_UNGROUPED: rng.chance(0.4),
    CUSTOM_COLOR: rng.pick(COLORS),
    SCOPE_OF_WORK: scope,
    PROJECT_NOTES: rng.chance(0.8) ? sentences(rng, NOTE_SENTENCES, rng.int(1, 3), rng.chance(0.5) ? '\n' : ' ') : '',
    JOBSITE_INSTRUCTIONS: rng.chance(0.6) ? sentences(rng, JOBSITE_SENTENCES, rng.int(1, 3), '\r\n') : '',
    TOTAL_TIME: rng.int(0, 250_000),
    TOTAL_MONEY: Math.round(rng.next() * 250_000_000) / 100,
    NUMBERFOLDERS: rng.int(0, 40),
    NUMBERIMAGES: rng.int(0, 900),
    NUMBERALBUMS: rng.int(0, 12),
    NUMBERFILES: rng.int(0, 600),
    PROJECT_TYPE: type,
    PROJECT_TYPE_CUSTOM: rng.chance(0.2) ? rng.int(1, 6) : 0,
    ATTACH_FOLDER_ID: rng.chance(0.2) ? rng.int(100_000, 999_999) : null,
    PRIMARY_SCHEDULE: rng.chance(0.15) ? rng.int(1000, 99_999) : null,
    COST_CODE_SET: rng.int(0, 4),
    PROJECT_GROUP: rng.int(0, 6),
    PROJECT_STAGE: rng.int(0, 5),
    PROJECT_CATEGORY: rng.int(0, 8),
    PROJECT_OFFICE: rng.int(0, 3),
    PROJECT_DIVISION: rng.int(0, 4),
    PROJECT_REGION: rng.int(0, 4),
    PERMISSION_FILES: rng.pick([0, 7, 255, 511, 1023]),
    PERMISSION_CALENDAR: permissions(rng),
    PERMISSIONS_TIME: permissions(rng),
    PERMISSIONS_TODOS: permissions(rng),
    PERMISSIONS_SCHEDULING: permissions(rng),
    PERMISSIONS_PUNCHLISTS: permissions(rng),
    PERMISSIONS_CHANGEORDERS: permissions(rng),
    PERMISSIONS_SELECTIONS: permissions(rng),
    PERMISSIONS_LOGGING: permissions(rng),
    PERMISSIONS_RFIS: permissions(rng),
    PERMISSIONS_TRANSMITTAL: permissions(rng),
    PERMISSIONS_SUBMITTAL: permissions(rng),
    PERMISSIONS_ESTIMATING: permissions(rng),
    PERMISSIONS_CHECKLISTS: permissions(rng),
    ...UNQUALIFIED_NULLS,
  };
}

/** Seed §2.1: observed null, value type not shown; the sandbox always sends null. */
const UNQUALIFIED_NULLS = {
  ESTIMATE_UNQUALIFIED_COMMITS: null,
  ESTIMATE_UNQUALIFIED_ACTUALS: null,
  ESTIMATE_UNQUALIFIED_EXPENSES: null,
  SELECTION_UNQUALIFIED_COMMITS: null,
  SELECTION_UNQUALIFIED_ACTUALS: null,
  SELECTION_UNQUALIFIED_EXPENSES: null,
  CHANGE_ORDER_UNQUALIFIED_COMMITS: null,
  CHANGE_ORDER_UNQUALIFIED_ACTUALS: null,
  CHANGE_ORDER_UNQUALIFIED_EXPENSES: null,
} as const;

/** Seed §1: a pseudo-project whose project-specific properties carry no data. */
function myDocumentsRecord(e: ProjectEntry, rng: Rng): Record<string, unknown> {
  const created = START + Math.floor(rng.next() * 600 * DAY);
  return {
    ID: e.id,
    NAME: 'My Documents',
    CREATED_BY: e.ownerUserId,
    CREATOR_NAME: staffName(e.ownerUserId),
    LMOD: formatServiceDate(created + rng.int(0, 900) * DAY),
    DATE_CREATED: formatServiceDate(created),
    LMOD_CON_ID: e.ownerUserId,
    ADDRESS: '',
    CITY: '',
    STATE: '',
    ZIP: '',
    PROJECT_NUMBER: '',
    LAT: 0,
    LON: 0,
    COUNTRY_SETTING: 1,
    CURRENCY: 1,
    COMPANY_ID: e.companyId,
    IS_ARCHIVED: false,
    IS_INACTIVE: false,
    IS_TEMPLATE: false,
    IS_UNGROUPED: true,
    CUSTOM_COLOR: '#FFFFFF',
    SCOPE_OF_WORK: '',
    PROJECT_NOTES: '',
    JOBSITE_INSTRUCTIONS: '',
    TOTAL_TIME: 0,
    TOTAL_MONEY: 0,
    NUMBERFOLDERS: e.official ? rng.int(1, 12) : 0,
    NUMBERIMAGES: e.official ? rng.int(0, 80) : 0,
    NUMBERALBUMS: 0,
    NUMBERFILES: e.official ? rng.int(0, 120) : 0,
    PROJECT_TYPE: '',
    PROJECT_TYPE_CUSTOM: 0,
    ATTACH_FOLDER_ID: null,
    PRIMARY_SCHEDULE: null,
    COST_CODE_SET: 0,
    PROJECT_GROUP: 0,
    PROJECT_STAGE: 0,
    PROJECT_CATEGORY: 0,
    PROJECT_OFFICE: 0,
    PROJECT_DIVISION: 0,
    PROJECT_REGION: 0,
    PERMISSION_FILES: 1023,
    PERMISSION_CALENDAR: 0,
    PERMISSIONS_TIME: 0,
    PERMISSIONS_TODOS: 0,
    PERMISSIONS_SCHEDULING: 0,
    PERMISSIONS_PUNCHLISTS: 0,
    PERMISSIONS_CHANGEORDERS: 0,
    PERMISSIONS_SELECTIONS: 0,
    PERMISSIONS_LOGGING: 0,
    PERMISSIONS_RFIS: 0,
    PERMISSIONS_TRANSMITTAL: 0,
    PERMISSIONS_SUBMITTAL: 0,
    PERMISSIONS_ESTIMATING: 0,
    PERMISSIONS_CHECKLISTS: 0,
    ...UNQUALIFIED_NULLS,
  };
}
