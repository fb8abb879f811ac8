import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { AUDIT_ACTIONS, AUDIT_FIELDS, AUDIT_OPERATOR_FIELDS } from './actions';

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

  it('every field the server writes into a user’s entry, a request’s decision, claim or release, a code’s cancel and an incident’s note has a Russian label', () => {
    const text = (file: string) => sources.find((s) => s.file.replaceAll('\\', '/') === file)!.text;
    // `key: value`, `key?: type`, or a shorthand `{ note }`.
    const keys = (block: string) => [...block.matchAll(/\b([a-z_]+)\??:|\{ ([a-z_]+) \}/g)].map(([, k, short]) => (k ?? short)!);
    const between = (t: string, from: string, to: string) => t.slice(t.indexOf(from), t.indexOf(to, t.indexOf(from)));
    const everyBetween = (t: string, from: string, to: string) => t.split(from).slice(1).map((part) => part.slice(0, part.indexOf(to)));
    const fields = [
      ...keys(between(text('modules/accounts/accounts-admin.mapper.ts'), 'toUserAuditView = (u: User) =>', '});')).filter((k) => k !== 'u'),
      ...keys(between(text('modules/accounts/accounts-admin.service.ts'), 'revokeLeftovers(', '}>')).filter((k) => k !== 'trx'),
      ...keys(between(text('modules/requests/requests.service.ts'), 'const snapshot', '});')).filter((k) => k !== 'r'),
      ...keys(between(text('modules/shift/shift.service.ts'), "action: 'request.claim'", '});')),
      // Both releases: releaseAllOf's (a blocked or demoted operator's claims, with claim_dropped_by) and release's.
      ...everyBetween(text('modules/shift/shift.service.ts'), "action: 'request.release'", '});').flatMap(keys),
      ...keys(between(text('modules/codes/codes-admin.service.ts'), "action: 'code.cancel'", '});')),
      ...keys(between(text('modules/incidents/incidents-admin.service.ts'), "action: 'code_incident.resolve'", '});')),
    ].filter((k) => !['action', 'adminId', 'entityType', 'entityId', 'before', 'after'].includes(k));
    expect(fields).toEqual(expect.arrayContaining(['two_factor', 'webhook_removed', 'processed_by', 'claimed_by', 'claim_dropped_by', 'refunded', 'note']));
    expect(fields.filter((f) => !AUDIT_FIELDS[f])).toEqual([]);
    // A field that names who did something (`…_by`) holds a user's id: shown as the operator's name, not the number.
    expect(fields.filter((f) => f.endsWith('_by') && !AUDIT_OPERATOR_FIELDS.has(f))).toEqual([]);
  });
});
