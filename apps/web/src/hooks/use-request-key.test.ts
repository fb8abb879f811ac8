import { beforeEach, describe, expect, it } from 'vitest';
import { ApiError } from '../lib/api-client';
import { inDoubt, useRequestKeys } from './use-request-key';

const keys = useRequestKeys.getState;
const lost = new ApiError(0, { message: 'Нет связи с сервером' });
const refused = (status: number) => new ApiError(status, { message: 'Отказ' });

describe('the Idempotency-Keys kept while a request is in doubt', () => {
  beforeEach(() => useRequestKeys.setState({ kept: {} }));

  it('a try still running leaves its request in doubt: the same request sent meanwhile carries the same key', () => {
    const first = keys().begin('take:1:1:1500000');
    expect(inDoubt('take:1:1:1500000')).toBe(true);
    expect(keys().begin('take:1:1:1500000')).toBe(first);
    // Another amount, currency or server is another request.
    expect(keys().begin('take:1:1:2000000')).not.toBe(first);
    expect(keys().begin('take:2:1:1500000')).not.toBe(first);
  });

  it('a success drops the key: the next request like it is a new one', () => {
    const first = keys().begin('put:1:1:1000000');
    keys().succeeded('put:1:1:1000000', first);
    expect(inDoubt('put:1:1:1000000')).toBe(false);
    expect(keys().begin('put:1:1:1000000')).not.toBe(first);
  });

  it('a refusal drops the key only when no other try with it runs or lost its answer', () => {
    const key = keys().begin('show_code:1:5:1000000::1020000');
    keys().failed('show_code:1:5:1000000::1020000', key, refused(422));
    expect(inDoubt('show_code:1:5:1000000::1020000')).toBe(false);

    // Two tries with one key (the dialog closed and opened again while the first ran): a 409 or 429 of the second says nothing of the first.
    const again = keys().begin('show_code:1:5:1000000::1020000');
    keys().begin('show_code:1:5:1000000::1020000');
    keys().failed('show_code:1:5:1000000::1020000', again, refused(429));
    expect(inDoubt('show_code:1:5:1000000::1020000')).toBe(true);
    keys().failed('show_code:1:5:1000000::1020000', again, refused(422));
    expect(inDoubt('show_code:1:5:1000000::1020000')).toBe(false);
  });

  it('after a lost answer the key stays through refusals that prove nothing (429, 401, a TOTP prompt) until a try succeeds', () => {
    const key = keys().begin('vip:1:3');
    keys().failed('vip:1:3', key, lost);
    for (const status of [429, 401, 403]) {
      expect(keys().begin('vip:1:3')).toBe(key);
      keys().failed('vip:1:3', key, refused(status));
    }
    expect(keys().begin('vip:1:3')).toBe(key);
    keys().succeeded('vip:1:3', key);
    expect(inDoubt('vip:1:3')).toBe(false);
  });

  it('the late answer of a key already dropped changes nothing for the key that replaced it', () => {
    const old = keys().begin('take:1:1:1500000');
    keys().begin('take:1:1:1500000');
    keys().succeeded('take:1:1:1500000', old);
    const fresh = keys().begin('take:1:1:1500000');
    keys().failed('take:1:1:1500000', old, refused(409));
    keys().succeeded('take:1:1:1500000', old);
    expect(inDoubt('take:1:1:1500000')).toBe(true);
    expect(keys().begin('take:1:1:1500000')).toBe(fresh);
  });
});
