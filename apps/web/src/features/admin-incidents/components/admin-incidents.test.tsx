// @vitest-environment happy-dom
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { act, createElement } from 'react';
import { createRoot, type Root } from 'react-dom/client';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { answer, cleanup, settle } from '../../../test/dom';
import { AdminIncidents } from './admin-incidents';

(globalThis as { IS_REACT_ACT_ENVIRONMENT?: boolean }).IS_REACT_ACT_ENVIRONMENT = true;

const person = (id: number, name: string) => ({ id, name, email: null });
const incident = {
  id: 7,
  code_id: 3,
  gamesserver_id: 1,
  gamesserver: 'Scryde x50',
  nominal: 5_000_000,
  sert: 'AB12-****-****-CD34',
  code_status: 'activated',
  issuer: person(2, 'Продавец'),
  attempted_by: person(4, 'Покупатель'),
  attempt_ip: null,
  acknowledged_at: null,
  created_at: '2026-11-27T10:00:00Z',
};
const othersNote = { incident_id: 7, note: 'Вернули покупателю', resolved_by: 9, resolved_by_name: 'Оператор Б', resolved_at: '2026-11-27T10:05:00Z' };


/** The incidents screen, signed in, with its first reads answered by the stubbed fetch. */
async function mountIncidents() {
  localStorage.setItem('access_token', 'token');
  const qc = new QueryClient({ defaultOptions: { queries: { retry: false }, mutations: { networkMode: 'always' } } });
  const root = createRoot(document.body.appendChild(document.createElement('div')));
  await act(async () => root.render(createElement(QueryClientProvider, { client: qc }, createElement(AdminIncidents, { servers: [{ id: 1, name: 'Scryde x50' }] }))));
  await settle();
  await settle();
  return { root, qc };
}

describe("the operators' incident list", () => {
  let root: Root | null = null;
  afterEach(async () => {
    await cleanup(root);
    root = null;
    vi.unstubAllGlobals();
    window.history.replaceState(null, '', '/');
  });

  it('an incident another operator closed first shows their note instead of the button after the 409', async () => {
    let closedByOther = false;
    vi.stubGlobal(
      'fetch',
      vi.fn(async (url: string, init?: RequestInit) => {
        if (url.startsWith('/api/admin/code_incidents/7/resolve') && init?.method === 'POST') {
          closedByOther = true;
          return answer(409, { message: 'Инцидент уже закрыт' });
        }
        if (url.startsWith('/api/admin/code_incidents')) return answer(200, { data: [incident], total: 1 });
        if (url.startsWith('/api/admin/incident_resolutions')) return answer(200, closedByOther ? [othersNote] : []);
        throw new Error(`unexpected ${url}`);
      }),
    );
    ({ root } = await mountIncidents());
    const closeButton = () => [...document.querySelectorAll('button')].find((b) => b.textContent === 'Закрыть с заметкой');
    await act(async () => closeButton()!.click());
    const dialog = document.querySelector('[data-testid="resolve-incident-dialog"]')!;
    await act(async () => {
      const note = dialog.querySelector('textarea')!;
      Object.getOwnPropertyDescriptor(HTMLTextAreaElement.prototype, 'value')!.set!.call(note, 'Заблокировали продавца');
      note.dispatchEvent(new Event('input', { bubbles: true }));
    });
    const confirm = [...dialog.querySelectorAll('button')].find((b) => b.textContent === 'Закрыть инцидент')!;
    await act(async () => confirm.click());
    await settle();
    await settle();
    expect(dialog.textContent).toContain('Инцидент уже закрыт');
    expect(closeButton()).toBeUndefined();
    expect(document.querySelector('[data-testid="incident-resolution"]')?.textContent).toContain('Вернули покупателю');
  });

  it('notes that could not be read offer no close button (it may be closed already) and say so', async () => {
    let reads = 0;
    let releaseRetry: (r: Response) => void = () => {};
    vi.stubGlobal(
      'fetch',
      vi.fn(async (url: string) => {
        if (url.startsWith('/api/admin/code_incidents')) return answer(200, { data: [incident], total: 1 });
        if (url.startsWith('/api/admin/incident_resolutions')) {
          reads += 1;
          return reads === 1 ? answer(503, { message: 'Сервис временно недоступен' }) : new Promise<Response>((r) => (releaseRetry = r));
        }
        throw new Error(`unexpected ${url}`);
      }),
    );
    ({ root } = await mountIncidents());
    expect([...document.querySelectorAll('button')].find((b) => b.textContent === 'Закрыть с заметкой')).toBeUndefined();
    expect(document.querySelector('[data-testid="incident-resolution-unknown"]')?.textContent).toBe('Заметки не загрузились');
    // Said above the table too: on a phone that column is off screen.
    expect(document.querySelector('[data-testid="incident-notes-failed"]')?.textContent).toContain('Заметки к инцидентам не загрузились');
    // «Повторить» while the read is on its way: still said, no close button meanwhile.
    await act(async () => [...document.querySelectorAll('button')].find((b) => b.textContent === 'Повторить')!.click());
    await settle();
    expect(document.querySelector('[data-testid="incident-notes-failed"]')).not.toBeNull();
    expect(document.querySelector('[data-testid="incident-resolution-unknown"]')).not.toBeNull();
    await act(async () => releaseRetry(answer(200, [])));
    await settle();
    expect(document.querySelector('[data-testid="incident-notes-failed"]')).toBeNull();
    expect([...document.querySelectorAll('button')].find((b) => b.textContent === 'Закрыть с заметкой')).toBeDefined();
  });

  it('a page past the end (incidents acknowledged meanwhile, an old address) moves to the last page there is', async () => {
    // Review finding: ?page=2 with 20 incidents left showed a bare table header, no pager, no rows.
    window.history.replaceState(null, '', '/admin/incidents?state=open&page=2');
    const pages: string[] = [];
    vi.stubGlobal(
      'fetch',
      vi.fn(async (url: string) => {
        if (url.startsWith('/api/admin/code_incidents')) {
          const page = new URL(url, 'http://x').searchParams.get('page') ?? '1';
          pages.push(page);
          return answer(200, { data: page === '1' ? [incident] : [], total: 20 });
        }
        if (url.startsWith('/api/admin/incident_resolutions')) return answer(200, []);
        throw new Error(`unexpected ${url}`);
      }),
    );
    ({ root } = await mountIncidents());
    expect(pages).toEqual(['2', '1']);
    expect(document.querySelectorAll('[data-testid="admin-incident-row"]')).toHaveLength(1);
    expect(new URLSearchParams(window.location.search).get('page')).toBeNull();
  });

  it('a failed re-read of notes already shown keeps them, and the page stays up', async () => {
    // Diff review: the query had its old notes and an error at once; the failure flag flipped on every render.
    let reads = 0;
    vi.stubGlobal(
      'fetch',
      vi.fn(async (url: string) => {
        if (url.startsWith('/api/admin/code_incidents')) return answer(200, { data: [incident], total: 1 });
        if (url.startsWith('/api/admin/incident_resolutions')) {
          reads += 1;
          return reads === 1 ? answer(200, [othersNote]) : answer(503, { message: 'Сервис временно недоступен' });
        }
        throw new Error(`unexpected ${url}`);
      }),
    );
    const mounted = await mountIncidents();
    root = mounted.root;
    expect(document.querySelector('[data-testid="incident-resolution"]')?.textContent).toContain('Вернули покупателю');
    await act(async () => mounted.qc.invalidateQueries({ queryKey: ['admin'] }));
    await settle();
    await settle();
    expect(reads).toBeGreaterThan(1);
    expect(document.querySelector('[data-testid="incident-resolution"]')?.textContent).toContain('Вернули покупателю');
    expect(document.querySelector('[data-testid="incident-notes-failed"]')).toBeNull();
  });
});

describe('focus after closing an incident, for an operator working by keyboard', () => {
  // From the Chromium walk: «Закрыть с заметкой» left with the dialog's success, focus dropped to <body>, and the next
  // Tab landed on the admin menu.
  let root: Root | null = null;
  afterEach(async () => {
    await cleanup(root);
    root = null;
  });

  /** Two incidents; closing 7 answers `status` (409: another operator closed it first), and its note is listed after. */
  async function list(status: 200 | 409) {
    const notes: Array<typeof othersNote> = [];
    vi.stubGlobal(
      'fetch',
      vi.fn(async (url: string, init?: RequestInit) => {
        if (url.startsWith('/api/admin/code_incidents/7/resolve') && init?.method === 'POST') {
          const note = status === 200 ? { ...othersNote, note: String(JSON.parse(String(init.body)).note), resolved_by_name: 'Я' } : othersNote;
          notes.push(note);
          return status === 200 ? answer(200, { success: note }) : answer(409, { message: 'Инцидент уже закрыт' });
        }
        if (url.startsWith('/api/admin/code_incidents')) return answer(200, { data: [incident, { ...incident, id: 8 }], total: 2 });
        if (url.startsWith('/api/admin/incident_resolutions')) return answer(200, notes);
        throw new Error(`unexpected ${url}`);
      }),
    );
    ({ root } = await mountIncidents());
  }
  const row = (n: number) => document.querySelectorAll<HTMLElement>('[data-testid="admin-incident-row"]')[n]!;
  const buttonIn = (within: ParentNode, label: string) => [...within.querySelectorAll('button')].find((b) => b.textContent === label);
  const dialog = () => document.querySelector('[data-testid="resolve-incident-dialog"]')!;
  async function closeFirst() {
    await act(async () => {
      const b = buttonIn(row(0), 'Закрыть с заметкой')!;
      b.focus();
      b.click();
    });
    await settle();
    await act(async () => {
      const note = dialog().querySelector('textarea')!;
      Object.getOwnPropertyDescriptor(HTMLTextAreaElement.prototype, 'value')!.set!.call(note, 'Заблокировали продавца');
      note.dispatchEvent(new Event('input', { bubbles: true }));
    });
    await act(async () => buttonIn(dialog(), 'Закрыть инцидент')!.click());
    await settle();
    await settle();
  }
  /** Long enough for the dialog's closing transition to end and the page to drop it. */
  const dialogGone = () => act(async () => new Promise((r) => setTimeout(r, 400)));

  it('a closed incident’s note takes the place of its button, and focus goes to the note', async () => {
    await list(200);
    await closeFirst();
    await dialogGone();
    expect(buttonIn(row(0), 'Закрыть с заметкой')).toBeUndefined();
    const note = row(0).querySelector('[data-testid="incident-resolution"]');
    expect(note?.textContent).toContain('Заблокировали продавца');
    expect(document.activeElement).toBe(note);
  });

  it('one another operator closed first: after «Отмена» focus goes to their note, not to <body>', async () => {
    await list(409);
    await closeFirst();
    expect(dialog().textContent).toContain('Инцидент уже закрыт');
    await act(async () => buttonIn(dialog(), 'Отмена')!.click());
    await dialogGone();
    const note = row(0).querySelector('[data-testid="incident-resolution"]');
    expect(note?.textContent).toContain('Вернули покупателю');
    expect(document.activeElement).toBe(note);
    // The next incident keeps its button.
    expect(buttonIn(row(1), 'Закрыть с заметкой')).toBeDefined();
  });
});
