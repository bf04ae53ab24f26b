/** "1 row", "2 rows", "0 rows"; `plural` for words that do not just take an s ("1 entry", "2 entries"). */
export function count(n: number, word: string, plural = `${word}s`): string {
  return `${n} ${n === 1 ? word : plural}`;
}
