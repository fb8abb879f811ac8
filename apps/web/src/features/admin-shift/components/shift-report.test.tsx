// @vitest-environment happy-dom
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { act, createElement } from 'react';
import { createRoot, type Root } from 'react-dom/client';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { answer, cleanup, settle, type } from '../../../test/dom';
import { ShiftReport } from './shift-report';

(globalThis as { IS_REACT_ACT_ENVIRONMENT?: boolean }).IS_REACT_ACT_ENVIRONMENT = true;

describe('the shift report’s period', () => {
  let root: Root | null = null;
  afterEach(async () => {
    await cleanup(root);
    root = null;
  });

  it('an end before the start is said under «По» and not sent; the report and «Скачать CSV» come back with a period the server takes', async () => {
    // Walk finding: the period was sent, the server answered 422, and «Скачать CSV» alerted a generic message.
    localStorage.setItem('access_token', 'token');
    const asked: URLSearchParams[] = [];
    vi.stubGlobal(
      'fetch',
      vi.fn(async (url: string) => {
        const u = new URL(String(url), 'http://localhost');
        asked.push(u.searchParams);
        return answer(200, { from: `${u.searchParams.get('from')}T00:00:00+03:00`, to: `${u.searchParams.get('to')}T00:00:00+03:00`, operators: [] });
      }),
    );
    const qc = new QueryClient({ defaultOptions: { queries: { retry: false } } });
    root = createRoot(document.body.appendChild(document.createElement('div')));
    await act(async () => root!.render(createElement(QueryClientProvider, { client: qc }, createElement(ShiftReport))));
    await settle();
    const input = (label: string) => {
      const l = [...document.querySelectorAll('label')].find((x) => x.textContent?.startsWith(label))!;
      return document.getElementById(l.htmlFor) as HTMLInputElement;
    };
    const helper = (label: string) => input(label).closest('.MuiFormControl-root')?.querySelector('.MuiFormHelperText-root')?.textContent ?? null;
    const csv = () => [...document.querySelectorAll('button')].find((b) => b.textContent === 'Скачать CSV')!;

    await act(async () => type(input('С'), '2026-11-20'));
    await act(async () => type(input('По'), '2026-11-10'));
    await settle();
    expect(asked.some((q) => q.get('from') === '2026-11-20' && q.get('to') === '2026-11-10')).toBe(false);
    expect(helper('По')).toBe('Конец периода должен быть не раньше начала');
    expect(csv().disabled).toBe(true);
    expect(document.body.textContent).not.toContain('операторы не решили ни одной заявки');

    await act(async () => type(input('По'), '2026-11-25'));
    await settle();
    expect(asked.at(-1)?.get('from')).toBe('2026-11-20');
    expect(asked.at(-1)?.get('to')).toBe('2026-11-25');
    expect(helper('По')).toBeNull();
    expect(csv().disabled).toBe(false);
    expect(document.body.textContent).toContain('операторы не решили ни одной заявки');
  });
});
