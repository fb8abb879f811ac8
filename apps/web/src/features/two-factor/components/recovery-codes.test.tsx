// @vitest-environment happy-dom
import { act, createElement } from 'react';
import type { Root } from 'react-dom/client';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { useUi } from '../../../lib/ui-store';
import { answer, cleanup, mountWithQuery, settle } from '../../../test/dom';
import { RecoveryCodes } from './recovery-codes';

(globalThis as { IS_REACT_ACT_ENVIRONMENT?: boolean }).IS_REACT_ACT_ENVIRONMENT = true;

const copyButton = () => [...document.querySelectorAll('button')].find((b) => b.textContent?.startsWith('Скопирова'))!;
/** Puts `clipboard` on this page's navigator (undefined: an insecure origin, some webviews). */
const withClipboard = (clipboard: unknown) => Object.defineProperty(navigator, 'clipboard', { value: clipboard, configurable: true });

/** GET /api/public_config answering what `config` resolves to (no server is asked in these tests). */
const stubConfig = (config: Promise<Response>) => vi.stubGlobal('fetch', vi.fn(async () => config));

describe('«Скопировать» under the recovery codes', () => {
  let root: Root | null = null;
  beforeEach(() => stubConfig(Promise.resolve(answer(404, { message: 'Не найдено' }))));
  afterEach(async () => {
    await cleanup(root);
    root = null;
    delete (navigator as { clipboard?: unknown }).clipboard;
    useUi.setState({ snackbar: { ...useUi.getState().snackbar, open: false, text: '' } });
  });

  it.each([
    ['refused', { writeText: () => Promise.reject(new DOMException('Write permission denied', 'NotAllowedError')) }],
    ['absent', undefined],
  ])('says so when the clipboard is %s, instead of failing without a word', async (_, clipboard) => {
    // Review finding: the codes, shown once, were believed copied and never saved.
    withClipboard(clipboard);
    ({ root } = await mountWithQuery(() => createElement(RecoveryCodes, { codes: ['aaaa-bbbb', 'cccc-dddd'] })));
    await act(async () => copyButton().click());
    expect(useUi.getState().snackbar).toMatchObject({ open: true, status: 'error', text: 'Не удалось скопировать: выделите текст и скопируйте вручную' });
    expect(copyButton().textContent).toBe('Скопировать');
  });

  it('copies the codes one a line and says «Скопировано»', async () => {
    const written: string[] = [];
    withClipboard({ writeText: async (t: string) => void written.push(t) });
    ({ root } = await mountWithQuery(() => createElement(RecoveryCodes, { codes: ['aaaa-bbbb', 'cccc-dddd'] })));
    await act(async () => copyButton().click());
    expect(written).toEqual(['aaaa-bbbb\ncccc-dddd']);
    expect(copyButton().textContent).toBe('Скопировано');
    expect(useUi.getState().snackbar.open).toBe(false);
  });
});

describe('«Скачать .txt» under the recovery codes', () => {
  let root: Root | null = null;
  afterEach(async () => {
    await cleanup(root);
    root = null;
  });

  /** The text of the file «Скачать .txt» saves. */
  async function downloaded() {
    const blobs: Blob[] = [];
    const spies = [
      vi.spyOn(URL, 'createObjectURL').mockImplementation((b) => {
        blobs.push(b as Blob);
        return 'blob:codes';
      }),
      vi.spyOn(URL, 'revokeObjectURL').mockImplementation(() => {}),
      vi.spyOn(HTMLAnchorElement.prototype, 'click').mockImplementation(() => {}),
    ];
    const button = [...document.querySelectorAll('button')].find((b) => b.textContent === 'Скачать .txt')!;
    await act(async () => button.click());
    for (const spy of spies) spy.mockRestore();
    expect(blobs).toHaveLength(1);
    return blobs[0]!.text();
  }

  it('heads the file with the service’s name (BRAND_NAME), «Адена Кошелёк» until the public config has come', async () => {
    // Review finding: an operator who set BRAND_NAME=«L2 Bank» gave players a file headed «Адена Кошелёк».
    let send!: (r: Response) => void;
    stubConfig(new Promise<Response>((resolve) => (send = resolve)));
    ({ root } = await mountWithQuery(() => createElement(RecoveryCodes, { codes: ['aaaa-bbbb', 'cccc-dddd'] })));
    expect(await downloaded()).toBe('Адена Кошелёк — резервные коды входа\nКаждый код работает один раз.\n\naaaa-bbbb\ncccc-dddd\n');
    await act(async () => send(answer(200, { brand_name: 'L2 Bank', support_email: null, support_telegram: null })));
    await settle();
    expect(await downloaded()).toBe('L2 Bank — резервные коды входа\nКаждый код работает один раз.\n\naaaa-bbbb\ncccc-dddd\n');
  });
});
