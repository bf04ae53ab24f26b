/**
 * The sandbox's public types. Other modules (the CLI's `buildsync sandbox`, the demo, the
 * benchmark and many integration tests) code against these names; keep them stable.
 */

export type WindowName = 'second' | 'minute' | 'hour' | 'day' | 'week' | 'month';

export interface SandboxOptions {
  /** Interface to listen on. @defaultValue '127.0.0.1' */
  host?: string;
  /** TCP port; 0 picks a free one. @defaultValue 0 */
  port?: number;
  /** Listed (non-deleted) projects of the main user's company. Handles 200,000. @defaultValue 50 */
  projects?: number;
  /** Seed of the generated dataset; the same seed gives the same records. @defaultValue 1 */
  seed?: number;
  /** Requests allowed per user and window, or 'none'. @defaultValue the limits the service publishes (src/published-limits.ts) */
  limits?: Partial<Record<WindowName, number>> | 'none';
  /** A window's length in real milliseconds before `timeScale` (e.g. `{ hour: 2000 }`). */
  windowMs?: Partial<Record<WindowName, number>>;
  /** Divides every window length: 3600 makes an "hour" last one real second. @defaultValue 1 */
  timeScale?: number;
  /** Sliding log over the window, or fixed buckets aligned to the epoch. @defaultValue 'rolling' */
  counting?: 'rolling' | 'aligned';
  /** Send `Retry-After` (integer seconds) with 429 answers. @defaultValue false */
  retryAfterHeader?: boolean;
  /** Delay added before answering every request, in ms. @defaultValue 0 */
  latencyMs?: number;
  /** Injected faults. @defaultValue none */
  faults?: SandboxFaults;
  /**
   * Render every record's JSON once at start-up and serve listings from it (rendered-records.ts):
   * for benchmarks, so that the sandbox's CPU time does not compete with the pipeline measured on
   * the same cores. Costs ~2.3 KB of memory per project and a start-up of ~1 s per 100,000.
   * @defaultValue false
   */
  prerender?: boolean;
}

/** Probabilities 0..1, applied to the two create endpoints only unless `onGets` is true. */
export interface SandboxFaults {
  /** 500, nothing stored. */
  failBeforeStore?: number;
  /** Record stored, then 500. */
  failAfterStore?: number;
  /** Socket destroyed after reading the request, nothing stored. */
  dropBeforeStore?: number;
  /** Record stored, then socket destroyed with no answer. */
  dropAfterStore?: number;
  /** Also apply failBeforeStore / dropBeforeStore to the GET listings. */
  onGets?: boolean;
  /** Every listing answers 200, sends this many records, then the connection is destroyed mid-body. */
  cutListingsAfter?: number;
  /** Seed of the fault RNG, for deterministic runs. @defaultValue 1 */
  seed?: number;
}

export interface SandboxCredentials {
  email: string;
  password: string;
  apiKey: string;
}

export interface RequestLogEntry {
  /** Date.now() when the request arrived (real ms). */
  at: number;
  /** The authenticated user, null when authentication failed. */
  email: string | null;
  method: string;
  /** Path with query, as received. */
  path: string;
  /** Status answered; 0 while in flight and for a dropped connection. */
  status: number;
}

export interface StoredEstimate {
  id: number;
  projectId: number;
  email: string;
  /** The request body as received, parsed. */
  payload: unknown;
  /** The record answered to the caller. */
  record: Record<string, unknown>;
  createdAt: number;
}

export interface StoredBill {
  id: number;
  projectId: number;
  email: string;
  /** The raw `Info` query value as received, decoded from the URL. */
  info: string;
  /** `info`, parsed. */
  payload: unknown;
  /** The record answered to the caller. */
  record: Record<string, unknown>;
  createdAt: number;
}

export interface Sandbox {
  /** e.g. http://127.0.0.1:41234 */
  url: string;
  port: number;
  /** The main user (company 1). */
  credentials: SandboxCredentials;
  /** Every user, the main one first; each has its own rate budget. */
  users: SandboxCredentials[];
  estimates(): StoredEstimate[];
  bills(): StoredBill[];
  requests(): RequestLogEntry[];
  /** What v2 lists for this user, My Documents records included, in listing order. */
  visibleProjectIds(email: string, includeClientSub: boolean): number[];
  /** Any project, deleted ones and My Documents records included. */
  project(id: number): Record<string, unknown> | undefined;
  deletedProjectIds(): number[];
  /** Projects holding an estimate: the dataset's own plus those created through the API. */
  projectIdsWithEstimate(): number[];
  /** Adds an active project of company 1 (visible to the main user); returns its ID. */
  addProject(overrides?: Record<string, unknown>): number;
  deleteProject(id: number): void;
  /** Changes fields of a project (laid over its generated record, as addProject's overrides). */
  editProject(id: number, fields: Record<string, unknown>): void;
  setFaults(f: SandboxFaults): void;
  setLatency(ms: number): void;
  setLimits(l: SandboxOptions['limits']): void;
  /** Clears the rate-limit counters and the request log. */
  resetCounters(): void;
  /** Closes the server and every socket. */
  close(): Promise<void>;
}
