/**
 * The project universe: which records exist, their IDs, owners, flags and who sees them. Only
 * this small index lives in memory; each record's fields are generated on demand from
 * (seed, gen) by project-record.ts.
 */
import { createRng, mix32 } from './random.ts';
import { COLLEAGUE_USER_ID, MAIN_USER_ID, OTHER_COMPANY_USER_ID, USERS, type SandboxUser } from './users.ts';

export type ProjectStatus = 'active' | 'archived' | 'inactive' | 'template';

export interface ProjectEntry {
  id: number;
  /** Generation index: the record's fields are a function of (dataset seed, gen). */
  gen: number;
  kind: 'project' | 'my-documents';
  companyId: number;
  status: ProjectStatus;
  deleted: boolean;
  /** For My Documents: whose record it is. */
  ownerUserId: number;
  /** For My Documents: the official one (lowest ID) rather than a stale reference. */
  official: boolean;
  clientUserIds: readonly number[];
  subUserIds: readonly number[];
  /** A deliberately awkward NAME (commas, quotes, newline, non-ASCII, leading '='). */
  specialName: string | undefined;
  hasSeedEstimate: boolean;
  /** Fields set by addProject(), laid over the generated record. */
  overrides: Record<string, unknown> | undefined;
}

/** Company 1's awkward names, by listed ordinal, so even the default 50 projects carry them. */
const SPECIAL_NAMES: ReadonlyMap<number, string> = new Map([
  [1, 'Smith, Jones & Partners — Office Fit-out'],
  [2, 'The "Lakeside" Residence'],
  [3, 'Warehouse A\nPhase 2 (mezzanine)'],
  [4, 'Café Ñandú — 北京 Showroom'],
  [5, '=SUM(A1:A9) Tower'],
  [6, '@Harbor Lofts'],
  [7, '-12 Parking Deck, Level "B2"'],
  [10, 'Riverside Clinic Expansion'],
  [11, 'Riverside Clinic Expansion'],
]);

interface OtherProject {
  companyId: number;
  status: ProjectStatus;
  client?: number[];
  sub?: number[];
  deleted?: boolean;
}

/** Projects of companies 2 and 3; the main user is client or subcontractor on some of them. */
const OTHER_PROJECTS: readonly OtherProject[] = [
  { companyId: 2, status: 'active', client: [MAIN_USER_ID] },
  { companyId: 2, status: 'archived', client: [MAIN_USER_ID] },
  { companyId: 2, status: 'active', client: [MAIN_USER_ID] },
  { companyId: 2, status: 'active', sub: [MAIN_USER_ID] },
  { companyId: 2, status: 'inactive', sub: [MAIN_USER_ID] },
  { companyId: 2, status: 'active', client: [MAIN_USER_ID], deleted: true },
  { companyId: 2, status: 'inactive' },
  { companyId: 2, status: 'active' },
  { companyId: 2, status: 'active' },
  { companyId: 2, status: 'archived' },
  { companyId: 2, status: 'active' },
  { companyId: 2, status: 'template' },
  { companyId: 3, status: 'active', sub: [MAIN_USER_ID] },
  { companyId: 3, status: 'archived', client: [MAIN_USER_ID] },
  { companyId: 3, status: 'template', client: [COLLEAGUE_USER_ID] },
  { companyId: 3, status: 'active' },
  { companyId: 3, status: 'active' },
  { companyId: 3, status: 'active', deleted: true },
];

/** Company-1 projects (by listed ordinal) on which the company-2 user is a subcontractor. */
const SHARED_WITH_OTHER_COMPANY = new Set([3, 8]);

const NONE: readonly number[] = [];

function statusOf(ordinal: number): ProjectStatus {
  if (ordinal % 7 === 2) return 'archived';
  if (ordinal % 13 === 4) return 'inactive';
  if (ordinal % 29 === 6) return 'template';
  return 'active';
}

/** An active company-1 project unless `fields` say otherwise. */
function newEntry(id: number, gen: number, fields: Partial<ProjectEntry>): ProjectEntry {
  return {
    id, gen, kind: 'project', companyId: 1, status: 'active', deleted: false, ownerUserId: 0, official: false,
    clientUserIds: NONE, subUserIds: NONE, specialName: undefined, hasSeedEstimate: false, overrides: undefined,
    ...fields,
  };
}

export class Dataset {
  readonly seed: number;
  private entries: ProjectEntry[] = [];
  private readonly byId = new Map<number, ProjectEntry>();
  private nextGen = 0;
  private readonly visibleCache = new Map<string, ProjectEntry[]>();

  constructor(projects: number, seed: number) {
    this.seed = seed;
    this.build(projects);
  }

  private build(projects: number): void {
    const rng = createRng(mix32(this.seed, 0x5eed));
    let nextId = 10_000;
    const push = (fields: Partial<ProjectEntry>): void => {
      nextId += 1 + (rng.next() < 0.3 ? rng.int(1, 3) : 0); // realistic gaps in the ID sequence
      const entry = newEntry(nextId, this.nextGen++, fields);
      this.entries.push(entry);
      this.byId.set(entry.id, entry);
    };
    const myDocuments = (user: SandboxUser, official: boolean): void =>
      // A stale record points at a company the user left (company 9).
      push({ kind: 'my-documents', companyId: official ? user.companyId : 9, ownerUserId: user.id, official });
    const otherProject = (o: OtherProject): void =>
      push({
        companyId: o.companyId, status: o.status, deleted: o.deleted ?? false,
        clientUserIds: o.client ?? NONE, subUserIds: o.sub ?? NONE,
      });

    // Seed §1: the official My Documents has the lowest ID of the user's listing.
    for (const user of USERS) myDocuments(user, true);

    const deletedCount = Math.max(3, Math.floor(projects / 50));
    const companyTotal = projects + deletedCount;
    const deletedAt = new Set<number>();
    for (let j = 0; j < deletedCount; j++) deletedAt.add(Math.floor(((j + 0.5) * companyTotal) / deletedCount));
    const otherAt = (j: number): number => Math.floor(((j + 1) * companyTotal) / (OTHER_PROJECTS.length + 1));
    const main = USERS.find((u) => u.id === MAIN_USER_ID)!;
    const colleague = USERS.find((u) => u.id === COLLEAGUE_USER_ID)!;

    let other = 0;
    let ordinal = 0; // listed ordinal among company 1's non-deleted projects
    for (let k = 0; k < companyTotal; k++) {
      while (other < OTHER_PROJECTS.length && otherAt(other) === k) otherProject(OTHER_PROJECTS[other++]!);
      // Stale My Documents records sit among the projects, not next to the official one.
      if (k === Math.floor(companyTotal / 3)) myDocuments(main, false);
      if (k === Math.floor((2 * companyTotal) / 3)) myDocuments(colleague, false);
      if (deletedAt.has(k)) {
        push({ status: statusOf(k), deleted: true });
        continue;
      }
      push({
        status: statusOf(ordinal),
        subUserIds: SHARED_WITH_OTHER_COMPANY.has(ordinal) ? [OTHER_COMPANY_USER_ID] : NONE,
        specialName: SPECIAL_NAMES.get(ordinal),
        hasSeedEstimate: ordinal % 10 === 9, // DECISIONS.md: every tenth project already has an estimate
      });
      ordinal++;
    }
    while (other < OTHER_PROJECTS.length) otherProject(OTHER_PROJECTS[other++]!);
    myDocuments(main, false); // the second stale record has the highest ID of all
  }

  /** Every entry, deleted ones included, in ID order. */
  all(): readonly ProjectEntry[] {
    return this.entries;
  }

  get(id: number): ProjectEntry | undefined {
    return this.byId.get(id);
  }

  /**
   * What a listing shows this user, in ID order (docs/service.md, Overview, §4.2): My Documents records of the
   * user, projects of the user's company in any state but deleted, and, with includeClientSub,
   * projects of other companies where the user is client or subcontractor.
   */
  visible(user: SandboxUser, includeClientSub: boolean): ProjectEntry[] {
    const key = `${user.id}:${includeClientSub}`;
    let list = this.visibleCache.get(key);
    if (!list) {
      list = this.entries.filter((e) => this.sees(user, e, includeClientSub));
      this.visibleCache.set(key, list);
    }
    return list;
  }

  /** Creation targets: what the paged listing shows (client/sub projects included). */
  sees(user: SandboxUser, e: ProjectEntry, includeClientSub = true): boolean {
    if (e.deleted) return false;
    if (e.kind === 'my-documents') return e.ownerUserId === user.id;
    if (e.companyId === user.companyId) return true;
    return includeClientSub && (e.clientUserIds.includes(user.id) || e.subUserIds.includes(user.id));
  }

  deletedIds(): number[] {
    return this.entries.filter((e) => e.deleted).map((e) => e.id);
  }

  seedEstimateProjectIds(): number[] {
    return this.entries.filter((e) => e.hasSeedEstimate).map((e) => e.id);
  }

  /** Adds an active company-1 project; `overrides.ID` (unused) places it inside the ordering. */
  add(overrides: Record<string, unknown> = {}): number {
    const last = this.entries[this.entries.length - 1];
    const wanted = overrides.ID;
    let id: number;
    if (wanted !== undefined) {
      if (typeof wanted !== 'number' || !Number.isSafeInteger(wanted) || wanted < 1 || this.byId.has(wanted)) {
        throw new RangeError(`addProject: ID ${String(wanted)} is not a free positive integer`);
      }
      id = wanted;
    } else {
      id = (last?.id ?? 10_000) + 1;
    }
    const entry = newEntry(id, this.nextGen++, { overrides: { ...overrides, ID: id } });
    let at = this.entries.length;
    while (at > 0 && this.entries[at - 1]!.id > id) at--;
    this.entries.splice(at, 0, entry);
    this.byId.set(id, entry);
    this.visibleCache.clear();
    return id;
  }

  /** Lays `fields` over the project's record (its ID stays). */
  edit(id: number, fields: Record<string, unknown>): void {
    const e = this.byId.get(id);
    if (!e) throw new RangeError(`editProject: no project ${id}`);
    e.overrides = { ...e.overrides, ...fields, ID: id };
  }

  delete(id: number): void {
    const e = this.byId.get(id);
    if (!e) throw new RangeError(`deleteProject: no project ${id}`);
    e.deleted = true;
    this.visibleCache.clear();
  }
}
