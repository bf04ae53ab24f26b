/**
 * The CLI's `import` and the dashboard's import page run one import service (src/import-service/):
 * read statically from their sources, both import it, neither re-does its sequence (planning,
 * the durability decision, submitting through the queue), and the page reaches neither the
 * ledger nor the mapping layer but through it.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const SRC = resolve(dirname(fileURLToPath(import.meta.url)), '..', 'src');
const SERVICE = join(SRC, 'import-service');
/** The import page's route modules (mounted by import-page.ts). */
const PAGE_ROUTES = ['import-page.ts', 'import-context.ts', 'import-reading-routes.ts', 'import-check.ts', 'import-send.ts', 'import-results.ts'].map((f) => join(SRC, 'dashboard', f));
/** The import page's own files: its routes, upload storage, error mapping and HTML. */
const PAGE_FILES = [...PAGE_ROUTES, ...['upload-store.ts', 'http-errors.ts', 'import-html.ts'].map((f) => join(SRC, 'dashboard', f))];
const DASHBOARD_FILES = readdirSync(join(SRC, 'dashboard')).filter((f) => f.endsWith('.ts')).map((f) => join(SRC, 'dashboard', f));
const CLI_COMMAND = join(SRC, 'cli', 'import-command.ts');
/** The CLI's send, loaded by import-command.ts when it sends (not on a dry run). */
const CLI_SEND = join(SRC, 'cli', 'import-send.ts');

/** The files a source file imports (static, dynamic and re-exports), resolved; packages as they are written. */
function importsOf(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  const specifiers = [...text.matchAll(/(?:^|\n)\s*(?:import|export)\b[^'"`;]*?\bfrom\s+['"]([^'"]+)['"]|\bimport\(\s*['"]([^'"]+)['"]\s*\)|(?:^|\n)\s*import\s+['"]([^'"]+)['"]/g)]
    .map((m) => m[1] ?? m[2] ?? m[3]!);
  return specifiers.map((s) => (s.startsWith('.') ? resolve(dirname(file), s) : s));
}

const inside = (dir: string) => (path: string) => path === dir || path.startsWith(`${dir}/`);
const rel = (p: string) => (p.startsWith('/') ? relative(SRC, p) : p);

describe('one import service for the CLI and the import page', () => {
  it('reads the specifiers it means to (the check itself works)', () => {
    expect(importsOf(join(SRC, 'dashboard', 'server.ts')).map(rel)).toContain('dashboard/import-page.ts');
    expect(importsOf(join(SRC, 'cli', 'program', 'import.ts')).map(rel)).toContain('cli/import-command.ts');
  });

  it('no file of the dashboard imports src/ledger/, src/mapping/ or src/tables/: the page reads and edits files through the service', () => {
    for (const file of DASHBOARD_FILES) {
      const wrong = importsOf(file).filter((p) => ['ledger', 'mapping', 'tables'].some((d) => inside(join(SRC, d))(p)));
      expect(wrong.map(rel), rel(file)).toEqual([]);
    }
  });

  it('both cli/import-command.ts (and its send, cli/import-send.ts) and the page import the service', () => {
    const service = inside(SERVICE);
    expect(importsOf(CLI_COMMAND).filter(service).map(rel)).toEqual(['import-service/index.ts']);
    expect(importsOf(CLI_SEND).filter(service).map(rel)).toEqual(['import-service/index.ts']);
    // The page's routes reach the service through its index only; its check and its send both do.
    const pageImports = new Set(PAGE_ROUTES.flatMap((f) => importsOf(f).filter(service).map(rel)));
    expect([...pageImports]).toEqual(['import-service/index.ts']);
    for (const route of ['import-check.ts', 'import-send.ts']) {
      expect(importsOf(join(SRC, 'dashboard', route)).filter(service).map(rel), route).toEqual(['import-service/index.ts']);
    }
  });

  it('neither re-does the service\'s sequence: no planning, durability decision or queue submission of their own', () => {
    const sequence = /\b(planEstimates|planBills|streamEstimates|streamBills|loadProjectResolver|openSession|durabilityDecision|readDurabilityFacts|submitImport|ImportSubmission|writeDryRun)\b/g;
    for (const file of [CLI_COMMAND, CLI_SEND, ...PAGE_FILES]) {
      expect([...readFileSync(file, 'utf8').matchAll(sequence)].map((m) => m[1]), rel(file)).toEqual([]);
    }
  });

  it('the service sits above queue/ (it submits through it) and nothing below imports it', () => {
    const serviceFiles = readdirSync(SERVICE).filter((f) => f.endsWith('.ts')).map((f) => join(SERVICE, f));
    expect(serviceFiles.flatMap(importsOf).some(inside(join(SRC, 'queue')))).toBe(true);
    for (const layer of ['import', 'queue', 'ledger', 'mapping', 'session', 'tables']) {
      const dir = join(SRC, layer);
      const files = readdirSync(dir, { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.ts')).map((f) => join(dir, f));
      for (const file of files) expect(importsOf(file).filter(inside(SERVICE)).map(rel), rel(file)).toEqual([]);
    }
  });
});
