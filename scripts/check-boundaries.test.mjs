import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';

const SCRIPT = join(dirname(fileURLToPath(import.meta.url)), 'check-boundaries.mjs');
const roots = [];

/** A throwaway repository root holding the given files (path → text). */
function tree(files) {
  const root = mkdtempSync(join(tmpdir(), 'boundaries-'));
  roots.push(root);
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), text);
  }
  return root;
}
const check = (root) => spawnSync(process.execPath, [SCRIPT, root], { encoding: 'utf8' });

/** A server laid out as decision record 0015 says. */
const CLEAN = {
  'apps/server/src/main.ts': "import { buildApp } from './app';\n",
  'apps/server/src/app.ts': "import { walletsRoutes } from './modules/wallets/wallets.routes';\nimport { createWalletsService } from './modules/wallets/wallets.service';\n",
  'apps/server/src/db/client.ts': "import { Kysely } from 'kysely';\nimport pg from 'pg';\n",
  'apps/server/src/modules/wallets/wallets.routes.ts': "import type { WalletsService } from './wallets.service';\n",
  'apps/server/src/modules/wallets/wallets.service.ts': "import type { DbHandle } from '../../db/schema';\nimport { walletsRepository } from './wallets.repository';\n",
  'apps/server/src/modules/wallets/wallets.repository.ts': "import { sql } from 'kysely';\n",
  'apps/server/src/modules/codes/codes.service.ts': "import { createWalletsService } from '../wallets/wallets.service';\nimport { codesRepository } from './codes.repository';\n",
  'apps/server/src/modules/codes/codes.repository.ts': "import type { Kysely } from 'kysely';\n",
  'apps/server/src/modules/codes/codes.routes.test.ts': "import { sql } from 'kysely';\nimport { buildApp } from '../../app';\nimport { codesRepository } from './codes.repository';\n",
  'apps/web/src/features/codes/api/get-code.ts': "import { request } from '../../../lib/api-client';\n",
  'apps/web/src/lib/api-client.ts': 'export const request = 1;\n',
};

afterEach(() => {
  for (const root of roots.splice(0)) rmSync(root, { recursive: true, force: true });
});

describe('scripts/check-boundaries.mjs', () => {
  it('passes a tree that keeps every layer (test files may cross them)', () => {
    const r = check(tree(CLEAN));
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
  });

  it('fails a colour given as a path, which MUI 9 ignores, naming the file and line; sx may take one', () => {
    const r = check(
      tree({
        ...CLEAN,
        'apps/web/src/features/codes/code-line.tsx':
          "import Typography from '@mui/material/Typography';\nexport const A = () => <Typography color=\"textSecondary\" sx={{ color: 'text.secondary' }}>a</Typography>;\nexport const B = () => <Typography variant=\"body2\" color=\"text.secondary\">b</Typography>;\nexport const C = ({ s }: { s: boolean }) => <Typography color={s ? 'error' : 'text.secondary'}>c</Typography>;\nexport const D = ({ s }: { s: boolean }) => <Typography color={s ? 'error' : 'textSecondary'}>{a.b}</Typography>;\n",
      }),
    );
    expect(r.status).toBe(1);
    expect(r.stderr).toContain('features/codes/code-line.tsx:3 color="text.secondary"');
    expect(r.stderr).toContain('features/codes/code-line.tsx:4 color="text.secondary"');
    expect(r.stderr).not.toContain('code-line.tsx:2');
    expect(r.stderr).not.toContain('code-line.tsx:5');
  });

  it('fails a route that imports Kysely, naming the file', () => {
    const r = check(tree({ ...CLEAN, 'apps/server/src/modules/wallets/wallets.routes.ts': "import { sql } from 'kysely';\n" }));
    expect(r.status).toBe(1);
    expect(r.stderr).toContain('modules/wallets/wallets.routes.ts imports kysely');
  });

  it("fails a module that imports another module's repository, and a route that imports its own", () => {
    const r = check(
      tree({
        ...CLEAN,
        'apps/server/src/modules/codes/codes.service.ts': "import { walletsRepository } from '../wallets/wallets.repository';\n",
        'apps/server/src/modules/wallets/wallets.routes.ts': "import { walletsRepository } from './wallets.repository.ts';\n",
      }),
    );
    expect(r.status).toBe(1);
    expect(r.stderr).toContain("modules/codes/codes.service.ts imports modules/wallets/wallets.repository (another module's repository)");
    expect(r.stderr).toContain('modules/wallets/wallets.routes.ts imports modules/wallets/wallets.repository (routes call services)');
  });

  it('fails a service that imports pg, and anything but main.ts that imports app.ts', () => {
    const r = check(
      tree({
        ...CLEAN,
        'apps/server/src/modules/wallets/wallets.service.ts': "import type pg from 'pg';\n",
        'apps/server/src/modules/wallets/wallets.routes.ts': "import type { Deps } from '../../app';\n",
      }),
    );
    expect(r.status).toBe(1);
    expect(r.stderr).toContain('modules/wallets/wallets.service.ts imports pg');
    expect(r.stderr).toContain('modules/wallets/wallets.routes.ts imports app.ts');
  });

  it('still fails a web feature that imports another feature', () => {
    const r = check(tree({ ...CLEAN, 'apps/web/src/features/wallet/x.ts': "import { getCode } from '../codes/api/get-code';\n" }));
    expect(r.status).toBe(1);
    expect(r.stderr).toContain('features/wallet/x.ts imports features/codes/api/get-code');
  });
});
