/**
 * The gate the API client asks before and after each request. One declaration, the client's
 * (src/api/request-retry.ts); AccountThrottle implements it.
 */
export type { RequestGate } from '../api/index.ts';
