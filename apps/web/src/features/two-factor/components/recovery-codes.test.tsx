// @vitest-environment happy-dom
import { act, createElement } from 'react';
import type { Root } from 'react-dom/client';
import { afterEach, describe, expect, it } from 'vitest';
import { useUi } from '../../../lib/ui-store';
import { cleanup, mountWithQuery } from '../../../test/dom';
import { RecoveryCodes } from './recovery-codes';

(globalThis as { IS_REACT_ACT_ENVIRONMENT?: boolean }).IS_REACT_ACT_ENVIRONMENT = true;

const copyButton = () => [...document.querySelectorAll('button')].find((b) => b.textContent?.startsWith('Скопирова'))!;
/** Puts `clipboard` on this page's navigator (undefined: an insecure origin, some webviews). */
const withClipboard = (clipboard: unknown) => Object.defineProperty(navigator, 'clipboard', { value: clipboard, configurable: true });

describe('«Скопировать» under the recovery codes', () => {
  let root: Root | null = null;
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
