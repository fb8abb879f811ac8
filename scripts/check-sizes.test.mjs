import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';

const SCRIPT = join(dirname(fileURLToPath(import.meta.url)), 'check-sizes.mjs');
const roots = [];

/** A throwaway repository root holding the given files (path → text). */
function tree(files) {
  const root = mkdtempSync(join(tmpdir(), 'sizes-'));
  roots.push(root);
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), text);
  }
  return root;
}
const check = (root, ...flags) => spawnSync(process.execPath, [SCRIPT, root, ...flags], { encoding: 'utf8' });

/** A function of `n` lines in all (its first and last line included), named `name`. */
const fn = (name, n) => `export function ${name}() {\n${'  void 0;\n'.repeat(n - 2)}}\n`;
/** `n` lines of declarations. */
const filler = (n) => `${Array.from({ length: n }, (_, i) => `export const c${i} = ${i};`).join('\n')}\n`;

afterEach(() => {
  for (const root of roots.splice(0)) rmSync(root, { recursive: true, force: true });
});

describe('scripts/check-sizes.mjs', () => {
  it('passes functions of up to 88 lines and files of up to 440, and leaves test files alone', () => {
    const r = check(
      tree({
        'apps/server/src/modules/a/a.service.ts': fn('createA', 88) + filler(352),
        'apps/server/src/modules/a/a.service.test.ts': fn('longTest', 300) + filler(600),
        'packages/contract/src/calls/x.ts': filler(440),
      }),
    );
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
  });

  it('fails a server function over 88 lines and a file over 440, naming each and its size', () => {
    const r = check(
      tree({
        'apps/server/src/modules/a/a.service.ts': fn('createA', 89),
        'packages/contract/src/calls/x.ts': filler(441),
        'apps/web/src/features/f/components/big-dialog.tsx': filler(500),
      }),
    );
    expect(r.status).toBe(1);
    expect(r.stderr).toContain('apps/server/src/modules/a/a.service.ts:1 createA: 89 lines');
    expect(r.stderr).toContain('packages/contract/src/calls/x.ts: 441 lines');
    expect(r.stderr).toContain('apps/web/src/features/f/components/big-dialog.tsx: 500 lines');
  });

  it('passes a long function whose own leading comment says why, but not a long method inside it', () => {
    const factory = (inner) => `// Long: a factory of short functions.\nexport function createA() {\n${fn('one', inner).replace('export ', '  ')}${'  void 0;\n'.repeat(90)}  return { one };\n}\n`;
    expect(check(tree({ 'apps/server/src/modules/a/a.service.ts': factory(80) })).status).toBe(0);
    const r = check(tree({ 'apps/server/src/modules/a/a.service.ts': factory(95) }));
    expect(r.status).toBe(1);
    expect(r.stderr).toContain('a.service.ts:3 one: 95 lines');
    expect(r.stderr).not.toContain('createA');
  });

  it('finds a reason on the variable or property holding an arrow function, and on the file', () => {
    const arrow = `// Long: one closure.\nexport const run = () => {\n${'  void 0;\n'.repeat(90)}};\n`;
    const property = `export const s = {\n  // Long: one closure.\n  go: async () => {\n${'    void 0;\n'.repeat(90)}  },\n};\n`;
    const unexplained = `/** Runs. */\nexport const run = () => {\n${'  void 0;\n'.repeat(90)}};\n`;
    expect(check(tree({ 'apps/server/src/a.ts': arrow, 'apps/server/src/b.ts': property })).status).toBe(0);
    expect(check(tree({ 'apps/server/src/a.ts': `// Long file: one table of settings.\n${filler(500)}` })).status).toBe(0);
    const r = check(tree({ 'apps/server/src/a.ts': unexplained }));
    expect(r.status).toBe(1);
    expect(r.stderr).toContain('apps/server/src/a.ts:2 run: 92 lines');
  });

  it("lists the web's long components with --web without failing on them", () => {
    const r = check(tree({ 'apps/web/src/features/f/components/form.tsx': `export function Form() {\n  return (\n    <>\n${'      <div />\n'.repeat(93)}    </>\n  );\n}\n` }), '--web');
    expect(r.status).toBe(0);
    expect(r.stdout).toContain('apps/web/src/features/f/components/form.tsx:1 Form: 99 lines');
  });
});
