/**
 * The service's four operations (docs/service.md) over one keep-alive pool, with validation at the edge:
 * payloads are checked before they are sent, listed records before they are handed on.
 */
import { RecordInvalidError, backoffMs } from '../errors/index.ts';
import { type ClientOptions, type ResolvedClientOptions, resolveClientOptions } from './client-options.ts';
import { createdId } from './created-id.ts';
import { HttpTransport, type RequestSpec } from './http-transport.ts';
import { parseJsonArray, parseJsonArrayStream } from './json-array-stream.ts';
import { readPagedProjects } from './paged-listing.ts';
import { MAX_BILL_QUERY_LENGTH, billQueryString, estimatePayloadSchema, payloadInvalid, type BillPayload, type EstimatePayload } from '../payloads/index.ts';
import { type ProjectRecord, parseProject } from './project-schema.ts';
import { SendSlots } from './send-slots.ts';
import { type RetryOptions, isSafeToRetry, sleep, withRetries } from './request-retry.ts';

/** Options of a create. */
export interface CreateOptions {
  signal?: AbortSignal;
  /**
   * Called when the request holds its budget token and send slot, just before it is handed to
   * the socket (each attempt); throwing stops it unsent. The ledger marks the record `sending` here.
   */
  beforeSend?: () => Promise<void>;
}

export class ServiceClient {
  private readonly opts: Omit<ResolvedClientOptions, 'email' | 'password' | 'apiKey'>;
  private readonly transport: HttpTransport;
  private readonly retry: RetryOptions;

  constructor(opts: ClientOptions) {
    const resolved = resolveClientOptions(opts);
    // Only the transport keeps the credentials, as a header in a #private field.
    this.transport = new HttpTransport(resolved);
    const { email: _e, password: _p, apiKey: _k, ...rest } = resolved;
    this.opts = rest;
    this.retry = {
      gate: this.opts.gate,
      slots: new SendSlots(this.opts.connections),
      retries: this.opts.retries,
      retryBaseMs: this.opts.retryBaseMs,
      retryCapMs: this.opts.retryCapMs,
      maxRetryAfterMs: this.opts.maxRetryAfterMs,
    };
  }

  /**
   * Every visible project from GET /api/v2/Projects (docs/service.md, Projects listing (v2)), parsed as the body streams in, so
   * memory stays flat however many projects there are. Failures before the first project is
   * yielded are retried like any GET; a failure mid-stream is thrown (the caller restarts the
   * export, which writes to a temporary file).
   */
  async *listProjectsV2(opts: { includeClientSub: boolean; signal?: AbortSignal }): AsyncGenerator<ProjectRecord> {
    const spec: RequestSpec = {
      method: 'GET',
      route: 'projects-v2',
      path: `/api/v2/Projects?includeClientSub=${opts.includeClientSub ? 'true' : 'false'}`,
      signal: opts.signal,
    };
    let index = 0;
    let bodyFailures = 0;
    for (;;) {
      const res = await withRetries(this.retry, true, opts.signal, () => this.transport.send(spec));
      try {
        for await (const batch of parseJsonArrayStream(res.chunks)) {
          const projects = batch.map((value, k) => parseProject(value, index + k));
          for (const project of projects) {
            yield project;
            index++;
          }
        }
        return;
      } catch (err) {
        res.discard();
        if (index > 0 || !isSafeToRetry(err, true) || ++bodyFailures > this.opts.retries) throw err;
        await sleep(backoffMs(bodyFailures, this.opts.retryBaseMs, this.opts.retryCapMs), opts.signal);
      }
    }
  }

  /** Every visible project from GET /api/Projects?skip=&take= (docs/service.md, Projects listing (paged)); see `paged-listing.ts`. */
  listProjectsPaged(opts: { pageSize: number; signal?: AbortSignal }): AsyncGenerator<ProjectRecord> {
    return readPagedProjects(opts.pageSize, (skip, take) => this.readPage(skip, take, opts.signal));
  }

  /** POST /api/v2/estimates (docs/service.md, Estimates). The payload is checked first (RecordInvalidError). */
  async createEstimate(payload: EstimatePayload, opts: CreateOptions = {}): Promise<{ id: number; body: unknown }> {
    const parsed = estimatePayloadSchema.safeParse(payload);
    if (!parsed.success) throw payloadInvalid('estimate', parsed.error);
    const spec: RequestSpec = { method: 'POST', route: 'estimates', path: '/api/v2/estimates', json: JSON.stringify(parsed.data), signal: opts.signal };
    return this.create(spec, 'creating an estimate', opts.beforeSend);
  }

  /**
   * POST /api/Bills?Info=… with no body (docs/service.md, Bills), the bill in the observed wire shape
   * (`bill-info.ts`). A bill whose query string would pass 2,000 characters is refused before
   * sending (README, import bills): a truncated bill must never reach the service.
   */
  async createBill(bill: BillPayload, opts: CreateOptions = {}): Promise<{ id: number; body: unknown }> {
    const query = billQueryString(bill);
    if (query.length > MAX_BILL_QUERY_LENGTH) {
      throw new RecordInvalidError(
        `the bill would need a query string of ${query.length} characters; the limit is ${MAX_BILL_QUERY_LENGTH}. Split it into smaller bills or shorten its texts.`,
      );
    }
    return this.create({ method: 'POST', route: 'bills', path: `/api/Bills?${query}`, signal: opts.signal }, 'creating a bill', opts.beforeSend);
  }

  /** Length of `Info=…` as it would be sent (the contract refuses more than 2,000). */
  billQueryLength(bill: BillPayload): number {
    return billQueryString(bill).length;
  }

  close(): Promise<void> {
    return this.transport.close();
  }

  private async readPage(skip: number, take: number, signal: AbortSignal | undefined): Promise<ProjectRecord[]> {
    const spec: RequestSpec = { method: 'GET', route: 'projects-paged', path: `/api/Projects?skip=${skip}&take=${take}`, signal };
    // The whole page is read inside the retried attempt: a page cut short is simply read again.
    const values = await withRetries(this.retry, true, signal, async () => {
      const res = await this.transport.send(spec);
      const parts: Buffer[] = [];
      for await (const chunk of res.chunks) parts.push(chunk);
      return parseJsonArray(Buffer.concat(parts));
    });
    return values.map((value, k) => parseProject(value, skip + k));
  }

  private async create(spec: RequestSpec, what: string, beforeSend: CreateOptions['beforeSend']): Promise<{ id: number; body: unknown }> {
    // Not idempotent: only failures that prove nothing was sent are retried (request-retry.ts).
    const body = await withRetries(
      this.retry,
      false,
      spec.signal,
      async () => {
        const res = await this.transport.send(spec);
        return this.transport.readJson(res, what);
      },
      beforeSend,
    );
    return { id: createdId(body, what), body };
  }
}
