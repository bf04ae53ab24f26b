/** What the sandbox stored through the API, and the counters that give every record its ID. */
import type { StoredBill, StoredEstimate } from './types.ts';

export class Store {
  readonly estimates: StoredEstimate[] = [];
  readonly bills: StoredBill[] = [];
  /** Projects holding an estimate (docs/service.md, Project records: at most one per project). */
  private readonly estimateProjects: Set<number>;
  private nextEstimateId = 300_001;
  private nextBillId = 900_001;
  private nextChild = 1_000_001;

  constructor(seededEstimateProjects: number[]) {
    this.estimateProjects = new Set(seededEstimateProjects);
  }

  hasEstimate(projectId: number): boolean {
    return this.estimateProjects.has(projectId);
  }

  projectIdsWithEstimate(): number[] {
    return [...this.estimateProjects].sort((a, b) => a - b);
  }

  newEstimateId(): number {
    return this.nextEstimateId++;
  }

  newBillId(): number {
    return this.nextBillId++;
  }

  /** IDs of categories, subcategories, items, markup rows and bill items. */
  readonly newChildId = (): number => this.nextChild++;

  addEstimate(e: StoredEstimate): void {
    this.estimates.push(e);
    this.estimateProjects.add(e.projectId);
  }

  addBill(b: StoredBill): void {
    this.bills.push(b);
  }
}
