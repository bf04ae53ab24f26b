/** Maps a non-2xx answer to the error class that decides how it is handled (docs/service.md, Errors). */
import {
  AuthError,
  BadRequestError,
  type HttpError,
  type HttpErrorInit,
  NotFoundError,
  RateLimitError,
  ServerError,
  UnexpectedStatusError,
} from '../errors/index.ts';
import { parseRateLimit } from './rate-limit-info.ts';

export function errorForStatus(init: HttpErrorInit, nowMs = Date.now()): HttpError {
  const s = init.status;
  if (s === 400) return new BadRequestError(init);
  // The seed does not show what wrong credentials yield (§5); 401 and 403 both mean "not allowed".
  if (s === 401 || s === 403) return new AuthError(init);
  if (s === 404) return new NotFoundError(init);
  if (s === 429) {
    const { retryAfterMs, window } = parseRateLimit(init.headers ?? {}, init.body, nowMs);
    return new RateLimitError(init, retryAfterMs, window);
  }
  if (s >= 500 && s <= 599) return new ServerError(init);
  return new UnexpectedStatusError(init);
}
