import { describe, expect, it } from 'vitest';
import * as contract from './index';
import { routes } from './routes';

describe('the lite call references', () => {
  it.each(Object.entries(routes))('%s has the method and path of its call', (name, ref) => {
    const call = (contract as unknown as Record<string, { method: string; path: string }>)[name];
    expect(call, `no call named ${name} in the contract`).toBeDefined();
    expect({ method: ref.method, path: ref.path }).toEqual({ method: call!.method, path: call!.path });
  });
});
