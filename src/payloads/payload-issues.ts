import type { z } from 'zod';
import { RecordInvalidError } from '../errors/index.ts';

/** Turns a refused payload into one message naming each bad field: "ITEMS[0].RATE: …; NAME: …". */
export function payloadInvalid(what: string, error: z.ZodError): RecordInvalidError {
  const parts = error.issues.slice(0, 10).map((issue) => {
    const path = issue.path.map((p) => (typeof p === 'number' ? `[${p}]` : `.${String(p)}`)).join('').replace(/^\./, '');
    return `${path || '(payload)'}: ${issue.message}`;
  });
  const more = error.issues.length > 10 ? `; and ${error.issues.length - 10} more` : '';
  return new RecordInvalidError(`the ${what} is not valid for the service: ${parts.join('; ')}${more}`);
}
