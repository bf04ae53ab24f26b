import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSandbox, type Sandbox } from '../src/sandbox/index.ts';
import { call } from './sandbox-http.ts';

/** Seed §2.1, in order, typed independently of src/api. */
const SEED_FIELDS = `ID NAME CREATED_BY CREATOR_NAME LMOD DATE_CREATED LMOD_CON_ID ADDRESS CITY STATE ZIP
PROJECT_NUMBER LAT LON COUNTRY_SETTING CURRENCY COMPANY_ID IS_ARCHIVED IS_INACTIVE IS_TEMPLATE IS_UNGROUPED
CUSTOM_COLOR SCOPE_OF_WORK PROJECT_NOTES JOBSITE_INSTRUCTIONS TOTAL_TIME TOTAL_MONEY NUMBERFOLDERS NUMBERIMAGES
NUMBERALBUMS NUMBERFILES PROJECT_TYPE PROJECT_TYPE_CUSTOM ATTACH_FOLDER_ID PRIMARY_SCHEDULE COST_CODE_SET
PROJECT_GROUP PROJECT_STAGE PROJECT_CATEGORY PROJECT_OFFICE PROJECT_DIVISION PROJECT_REGION PERMISSION_FILES
PERMISSION_CALENDAR PERMISSIONS_TIME PERMISSIONS_TODOS PERMISSIONS_SCHEDULING PERMISSIONS_PUNCHLISTS
PERMISSIONS_CHANGEORDERS PERMISSIONS_SELECTIONS PERMISSIONS_LOGGING PERMISSIONS_RFIS PERMISSIONS_TRANSMITTAL
PERMISSIONS_SUBMITTAL PERMISSIONS_ESTIMATING PERMISSIONS_CHECKLISTS ESTIMATE_UNQUALIFIED_COMMITS
ESTIMATE_UNQUALIFIED_ACTUALS ESTIMATE_UNQUALIFIED_EXPENSES SELECTION_UNQUALIFIED_COMMITS
SELECTION_UNQUALIFIED_ACTUALS SELECTION_UNQUALIFIED_EXPENSES CHANGE_ORDER_UNQUALIFIED_COMMITS
CHANGE_ORDER_UNQUALIFIED_ACTUALS CHANGE_ORDER_UNQUALIFIED_EXPENSES`.split(/\s+/);

type P = Record<string, any>;

describe('sandbox GET /api/v2/Projects?includeClientSub (docs/service.md, Projects listing (v2))', () => {
  let sb: Sandbox;
  const list = async (flag: string, creds = sb?.credentials): Promise<P[]> => {
    const r = await call(sb, 'GET', `/api/v2/Projects?includeClientSub=${flag}`, { creds });
    expect(r.status).toBe(200);
    return r.json;
  };
  beforeAll(async () => {
    sb = await startSandbox({ limits: 'none' });
  });
  afterAll(() => sb.close());

  it('answers a bare JSON array of records with every seed field, in seed order', async () => {
    const projects = await list('true');
    for (const p of projects) expect(Object.keys(p)).toEqual(SEED_FIELDS);
    const p = projects.find((x) => x.NAME !== 'My Documents')!;
    expect(p.LMOD).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?$/);
    expect(p.CUSTOM_COLOR).toMatch(/^#[0-9A-F]{6}$/i);
    expect(decodeURIComponent(p.SCOPE_OF_WORK)).toMatch(/^<h3>.*<\/h3><ul><li>/s);
    expect(p.CHANGE_ORDER_UNQUALIFIED_EXPENSES).toBeNull();
  });

  it('lists 50 company projects by default, plus My Documents records', async () => {
    const own = (await list('false')).filter((p) => p.NAME !== 'My Documents');
    expect(own).toHaveLength(50);
    expect(own.every((p) => p.COMPANY_ID === 1)).toBe(true);
  });

  it('adds the client and subcontractor projects of other companies only when includeClientSub=true', async () => {
    const withCs = await list('true');
    const without = await list('False');
    const extra = withCs.filter((p) => !without.some((q) => q.ID === p.ID));
    expect(extra.length).toBeGreaterThanOrEqual(5);
    expect(extra.every((p) => p.COMPANY_ID !== 1)).toBe(true);
    expect(without.every((p) => p.COMPANY_ID === 1 || p.NAME === 'My Documents')).toBe(true);
    expect(withCs.map((p) => p.ID)).toEqual(sb.visibleProjectIds(sb.credentials.email, true));
    expect(without.map((p) => p.ID)).toEqual(sb.visibleProjectIds(sb.credentials.email, false));
  });

  it('answers 400 when includeClientSub is missing or not a boolean', async () => {
    expect((await call(sb, 'GET', '/api/v2/Projects')).status).toBe(400);
    const r = await call(sb, 'GET', '/api/v2/Projects?includeClientSub=maybe');
    expect(r.status).toBe(400);
    expect(r.json.Message).toMatch(/includeClientSub/);
  });

  it('puts the official My Documents first with the lowest ID, and lists the stale ones too', async () => {
    const projects = await list('true');
    const docs = projects.filter((p) => p.NAME === 'My Documents');
    expect(docs.length).toBe(3);
    expect(projects[0]!.NAME).toBe('My Documents');
    expect(projects[0]!.ID).toBe(Math.min(...projects.map((p) => p.ID)));
    expect(projects.indexOf(docs[1]!)).toBeGreaterThan(0);
    expect(docs[0]!.SCOPE_OF_WORK).toBe('');
    expect(docs[0]!.ADDRESS).toBe('');
  });

  it('never lists deleted projects, and follows deleteProject()', async () => {
    const ids = (await list('true')).map((p) => p.ID);
    const deleted = sb.deletedProjectIds();
    expect(deleted.length).toBeGreaterThanOrEqual(3);
    expect(deleted.some((id) => sb.project(id)!.COMPANY_ID !== 1)).toBe(true); // a deleted client project too
    expect(ids.filter((id) => deleted.includes(id))).toEqual([]);
    const victim = ids.filter((id) => sb.project(id)!.COMPANY_ID === 1).at(-2)!;
    sb.deleteProject(victim);
    expect((await list('true')).map((p) => p.ID)).not.toContain(victim);
    expect(sb.project(victim)).toBeDefined();
  });

  it('lists active, archived, inactive and template projects', async () => {
    const projects = (await list('false')).filter((p) => p.NAME !== 'My Documents');
    expect(projects.some((p) => p.IS_ARCHIVED)).toBe(true);
    expect(projects.some((p) => p.IS_INACTIVE)).toBe(true);
    expect(projects.some((p) => p.IS_TEMPLATE)).toBe(true);
    expect(projects.some((p) => !p.IS_ARCHIVED && !p.IS_INACTIVE && !p.IS_TEMPLATE)).toBe(true);
  });

  it('carries awkward names: commas, quotes, newlines, non-ASCII and a leading =', async () => {
    const names = (await list('false')).map((p) => p.NAME as string);
    expect(names.some((n) => n.includes(','))).toBe(true);
    expect(names.some((n) => n.includes('"'))).toBe(true);
    expect(names.some((n) => n.includes('\n'))).toBe(true);
    expect(names).toContain('Café Ñandú — 北京 Showroom');
    expect(names.some((n) => n.startsWith('='))).toBe(true);
  });

  it("shows each user their own company's projects and My Documents", async () => {
    const other = sb.users.find((u) => u.email === 'pm@northgate.test')!;
    const theirs = await list('true', other);
    expect(theirs[0]!.NAME).toBe('My Documents');
    expect(theirs[0]!.CREATED_BY).not.toBe((await list('true'))[0]!.CREATED_BY);
    expect(theirs.filter((p) => p.NAME !== 'My Documents' && p.COMPANY_ID === 2).length).toBeGreaterThan(5);
    expect(theirs.some((p) => p.COMPANY_ID === 1)).toBe(true); // a subcontractor on company 1's work
  });

  it('generates the same records from the same seed', async () => {
    const again = await startSandbox({ limits: 'none' });
    try {
      const id = sb.visibleProjectIds(sb.credentials.email, false)[7]!;
      expect(again.project(id)).toEqual(sb.project(id));
    } finally {
      await again.close();
    }
    const other = await startSandbox({ seed: 2, limits: 'none' });
    try {
      const id = other.visibleProjectIds(other.credentials.email, false)[20]!;
      expect(other.project(id)).not.toEqual(sb.project(id));
    } finally {
      await other.close();
    }
  });
});
