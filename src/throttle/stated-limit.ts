import { normalizeWindowName, type WindowName } from './windows.ts';

/**
 * The limit a 429 names in its message, when it names one: "Rate limit exceeded: 500 requests
 * per hour", "limit of 10,000 requests a day", "500 req/hour". The seed shows no 429 body (§7),
 * so this is read where present and never required; a stated limit is the service's own word and
 * beats what counting sends can infer.
 */
const STATED =
  /\b(\d{1,3}(?:,\d{3})+|\d+)\s*(?:requests?|calls?|req)\s*(?:per|an?|each|every|\/)\s*(second|sec|minute|min|hour|hr|day|week|month)\b/i;

export function statedLimit(message: string | undefined): { window: WindowName; limit: number } | undefined {
  if (!message) return undefined;
  const m = STATED.exec(message);
  if (!m) return undefined;
  const window = normalizeWindowName(m[2]!);
  const limit = Number(m[1]!.replace(/,/g, ''));
  if (!window || !Number.isSafeInteger(limit) || limit < 1) return undefined;
  return { window, limit };
}
