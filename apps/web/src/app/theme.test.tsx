// @vitest-environment happy-dom
import AppBar from '@mui/material/AppBar';
import Button from '@mui/material/Button';
import CssBaseline from '@mui/material/CssBaseline';
import Pagination from '@mui/material/Pagination';
import { decomposeColor, getContrastRatio, getOverlayAlpha, recomposeColor, ThemeProvider } from '@mui/material/styles';
import { act, createElement } from 'react';
import { createRoot, type Root } from 'react-dom/client';
import { afterEach, describe, expect, it } from 'vitest';
import { buildTheme, safeInset } from './theme';

(globalThis as { IS_REACT_ACT_ENVIRONMENT?: boolean }).IS_REACT_ACT_ENVIRONMENT = true;

let root: Root | null = null;
afterEach(async () => {
  if (root) await act(async () => root!.unmount());
  root = null;
  document.body.innerHTML = '';
});

/** The CSS the theme puts in the page for CssBaseline and an app bar, minified as emotion writes it. */
async function renderedCss(theme: ReturnType<typeof buildTheme>) {
  root = createRoot(document.body.appendChild(document.createElement('div')));
  await act(async () => root!.render(createElement(ThemeProvider, { theme }, createElement(CssBaseline), createElement(AppBar, { position: 'sticky' }))));
  return [...document.head.querySelectorAll('style')].map((s) => s.textContent).join('\n');
}

describe('the theme', () => {
  it('names a pager and its buttons in Russian for screen readers', async () => {
    root = createRoot(document.body.appendChild(document.createElement('div')));
    await act(async () => root!.render(createElement(ThemeProvider, { theme: buildTheme('light') }, createElement(Pagination, { count: 3, page: 1 }))));
    expect(document.querySelector('nav')?.getAttribute('aria-label')).toBe('Страницы списка');
    expect(document.querySelector('button[aria-current="page"]')?.getAttribute('aria-label')).toBe('Страница 1');
  });

  it('gives the page and cards the colours it is built with', () => {
    const theme = buildTheme('dark', { bg: '#1c1c1d', paper: '#2c2c2e' });
    expect(theme.palette.background.default).toBe('#1c1c1d');
    expect(theme.palette.background.paper).toBe('#2c2c2e');
  });

  it('puts text of at least 4.5:1 on filled colours: dark on the dark error red, white where it reads', () => {
    const [light, dark] = [buildTheme('light').palette, buildTheme('dark').palette];
    for (const c of [light.warning, light.info, light.error, dark.error, dark.warning]) expect(getContrastRatio(c.main, c.contrastText)).toBeGreaterThanOrEqual(4.5);
    expect(light.warning.contrastText).toBe('#fff');
    expect(dark.error.contrastText).toBe('rgba(0, 0, 0, 0.87)');
    expect(light.error.contrastText).toBe('#fff');
    expect(light.primary.contrastText).toBe('#fff');
  });

  it('writes coloured and secondary text at 4.5:1 on the light theme’s page and cards (outlined buttons, chips, hints; walk 15)', () => {
    const p = buildTheme('light').palette;
    for (const bg of [p.background.default, p.background.paper]) {
      for (const fg of [p.warning.main, p.info.main, p.error.main, p.success.main, p.primary.main]) expect(getContrastRatio(fg, bg)).toBeGreaterThanOrEqual(4.5);
      // Secondary text is translucent black: its colour is the background darkened by its alpha.
      const alpha = decomposeColor(p.text.secondary).values[3] ?? 1;
      const mixed = recomposeColor({ type: 'rgb', values: decomposeColor(bg).values.slice(0, 3).map((v) => Math.round(v * (1 - alpha))) as [number, number, number] });
      expect(getContrastRatio(mixed, bg)).toBeGreaterThanOrEqual(4.5);
    }
  });

  it('puts a field’s error at 4.5:1 on a dark dialog, whose surface is lighter than a card’s', () => {
    const p = buildTheme('dark').palette;
    // MUI lightens a dark raised surface with white at its elevation's alpha; a dialog is elevation 24.
    const a = getOverlayAlpha(24);
    const paper = decomposeColor(p.background.paper);
    const dialog = recomposeColor({ type: 'rgb', values: paper.values.slice(0, 3).map((v) => Math.round(v * (1 - a) + 255 * a)) as [number, number, number] });
    expect(getContrastRatio(p.error.main, dialog)).toBeGreaterThanOrEqual(4.5);
    expect(getContrastRatio(p.error.main, p.background.paper)).toBeGreaterThanOrEqual(4.5);
  });

  it('inside Telegram, its button colour carries its own button text colour, as Telegram’s buttons do', () => {
    expect(buildTheme('dark', { bg: '#000000', paper: '#1c1c1d', primary: '#3e88f7', primaryText: '#ffffff' }).palette.primary).toMatchObject({
      main: '#3e88f7',
      contrastText: '#ffffff',
    });
  });

  it('inside Telegram, writes text in its button colour at 4.5:1 on the page and cards, and keeps its filled buttons Telegram’s', async () => {
    // Telegram's light blue on white (4.1:1), Telegram Web's lighter one (2.6:1), a dark theme's blue on a grey card.
    for (const [mode, tg] of [
      ['light', { bg: '#ffffff', paper: '#efeff3', primary: '#2481cc', primaryText: '#ffffff' }],
      ['light', { bg: '#ffffff', paper: '#ffffff', primary: '#40a7e3', primaryText: '#ffffff' }],
      ['dark', { bg: '#1c1c1d', paper: '#2c2c2e', primary: '#2a5885', primaryText: '#ffffff' }],
    ] as const) {
      const theme = buildTheme(mode, tg);
      for (const surface of [tg.bg, tg.paper]) expect(getContrastRatio(theme.palette.primary.main, surface)).toBeGreaterThanOrEqual(4.5);
      root = createRoot(document.body.appendChild(document.createElement('div')));
      await act(async () =>
        root!.render(createElement(ThemeProvider, { theme }, createElement(Button, { variant: 'contained' }, 'Купить'), createElement(Button, null, 'Отмена'))),
      );
      const [filled, plain] = [...document.querySelectorAll('button')].map((b) => getComputedStyle(b));
      expect(decomposeColor(filled!.backgroundColor)).toEqual(decomposeColor(tg.primary));
      expect(decomposeColor(filled!.color)).toEqual(decomposeColor(tg.primaryText));
      expect(decomposeColor(plain!.color)).toEqual(decomposeColor(theme.palette.primary.main));
      await act(async () => root!.unmount());
      root = null;
      document.body.innerHTML = '';
    }
  });

  it('its page colours win over index.html’s first-paint ones (html[data-theme…] body), as Telegram’s dark theme needs', async () => {
    const css = await renderedCss(buildTheme('dark', { bg: '#1c1c1d', paper: '#2c2c2e', text: '#ffffff' }));
    expect(css).toContain('html[data-theme] body,html:not([data-theme]) body{background-color:#1c1c1d;color:#ffffff;}');
    // Telegram's section colour as it is: no overlay lightening raised surfaces.
    expect(css).toMatch(/MuiPaper-root[^{]*\{[^}]*background-image:none/);
  });

  it('keeps the layout clear of the device’s and Telegram’s safe areas, each 0px when unset', async () => {
    expect(safeInset('bottom')).toBe(
      'calc(max(env(safe-area-inset-bottom, 0px), var(--tg-viewport-safe-area-inset-bottom, 0px)) + var(--tg-viewport-content-safe-area-inset-bottom, 0px))',
    );
    const css = await renderedCss(buildTheme('light'));
    // The app shell: Telegram's top (no app bar there), every other side in full.
    expect(css).toContain(
      `#root>div{padding-top:calc(var(--tg-viewport-safe-area-inset-top, 0px) + var(--tg-viewport-content-safe-area-inset-top, 0px));padding-right:${safeInset('right')};padding-bottom:${safeInset('bottom')};padding-left:${safeInset('left')};}`,
    );
    // The app bar outside Telegram reaches under the status bar.
    expect(css.split('\n').find((rule) => /MuiAppBar-root\{/.test(rule))).toContain(`padding-top:${safeInset('top')};`);
    // The app's own colours keep their dialogs' raised look.
    expect(buildTheme('dark').components?.MuiPaper).toBeUndefined();
  });
});
