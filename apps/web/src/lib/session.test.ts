// @vitest-environment happy-dom
import { QueryClient } from '@tanstack/react-query';
import { describe, expect, it } from 'vitest';
import { useRequestKeys } from '../hooks/use-request-key';
import { endSession } from './session';

describe('signing out', () => {
  it('forgets the requests left in doubt: the next player of this tab is not answered from the last one\u2019s withdrawal', () => {
    const keys = useRequestKeys.getState();
    // A withdrawal whose answer was lost: its key is kept, so sending the same again would be answered from it.
    const key = keys.begin('take:1:1:1500000');
    keys.failed('take:1:1:1500000', key, new TypeError('Failed to fetch'));
    expect(useRequestKeys.getState().kept['take:1:1:1500000']?.key).toBe(key);
    endSession(new QueryClient());
    expect(useRequestKeys.getState().kept).toEqual({});
    expect(useRequestKeys.getState().begin('take:1:1:1500000')).not.toBe(key);
  });
});
