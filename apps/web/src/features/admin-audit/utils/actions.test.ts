import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { AUDIT_ACTIONS } from './actions';

const SERVER = fileURLToPath(new URL('../../../../../server/src/', import.meta.url));
const sources = (readdirSync(SERVER, { recursive: true }) as string[])
  .filter((f) => f.endsWith('.ts') && !f.endsWith('.test.ts'))
  .map((f) => ({ file: f, text: readFileSync(join(SERVER, f), 'utf8') }));

const ACTION = /'([a-z_]+\.[a-z_]+)'/g;
/**
 * Where the server names an audited action: `action: '…'` in an audit.record call, or the action
 * argument of the two helpers that pass it on (accounts-admin's changeUser, requests' recordDecision).
 */
const NAMING = [/action:\s*'[a-z_]+\.[a-z_]+'/g, /changeUser\(\s*\w+,\s*\w+,\s*[^,]+,/g, /recordDecision\(\s*trx,\s*\w+,\s*'[^']+'/g];

function serverActions() {
  const found = new Set<string>();
  for (const { text } of sources) {
    for (const re of NAMING) for (const m of text.matchAll(re)) for (const [, a] of m[0].matchAll(ACTION)) found.add(a!);
  }
  return found;
}

describe('the audit log’s action labels', () => {
  it('every action the server writes has a Russian label', () => {
    const actions = serverActions();
    expect([...actions]).toEqual(expect.arrayContaining(['request.claim', 'request.release', 'user.two_factor_off', 'request.complete', 'gamesserver.create']));
    expect([...actions].filter((a) => !AUDIT_ACTIONS[a])).toEqual([]);
  });

  it('no audit.record call names its action some other way this test cannot read', () => {
    const passedOn = sources.filter(({ text }) => /audit\.record\([^)]*?\baction,/s.test(text)).map(({ file }) => file.replaceAll('\\', '/'));
    expect(passedOn.sort()).toEqual(['modules/accounts/accounts-admin.service.ts', 'modules/requests/requests.service.ts']);
  });
});
