/** The "Examples:" block every command's --help ends with (commander addHelpText 'after'). */
export function examples(lines: string[]): string {
  return `\nExamples:\n${lines.map((l) => `  $ ${l}`).join('\n')}`;
}
