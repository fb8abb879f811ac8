import { createTheme, darken, getContrastRatio, lighten, type PaletteMode } from '@mui/material/styles';
import { DIALOG_MAX_WIDTH } from '@adena/contract/lite';

const PAGE_NAV: Record<string, string> = {
  first: 'Первая страница',
  last: 'Последняя страница',
  next: 'Следующая страница',
  previous: 'Предыдущая страница',
};

export type ThemeChoice = 'light' | 'dark' | 'system';
export const THEME_KEY = 'theme';

export function readThemeChoice(): ThemeChoice {
  const saved = localStorage.getItem(THEME_KEY);
  return saved === 'light' || saved === 'dark' ? saved : 'system';
}

type Side = 'top' | 'right' | 'bottom' | 'left';

/**
 * What the page keeps clear of on one side, as a CSS length: the device's safe area (the browser's
 * env(), or inside Telegram its report, whichever is larger: a webview may give both) plus, inside
 * Telegram, the room its own controls take in full screen (lib/telegram binds these variables).
 * 0px on a desktop browser.
 */
export const safeInset = (side: Side) =>
  `calc(max(env(safe-area-inset-${side}, 0px), var(--tg-viewport-safe-area-inset-${side}, 0px)) + var(--tg-viewport-content-safe-area-inset-${side}, 0px))`;

/** The top as Telegram reports it; unset, so 0px, anywhere else (there the app bar takes the top). */
const TELEGRAM_TOP = 'calc(var(--tg-viewport-safe-area-inset-top, 0px) + var(--tg-viewport-content-safe-area-inset-top, 0px))';

const SAFE_PADDING = { paddingTop: safeInset('top'), paddingRight: safeInset('right'), paddingBottom: safeInset('bottom'), paddingLeft: safeInset('left') };

/**
 * A colour for text on every one of `surfaces` at 4.5:1 (WCAG AA): `color` itself when it reads so, else darkened
 * (light theme) or lightened (dark) a tenth at a time until it does. `color` as it is when it is not a colour MUI reads.
 */
function readableOn(color: string, surfaces: readonly string[], dark: boolean) {
  try {
    let c = color;
    for (let i = 0; i < 30 && surfaces.some((s) => getContrastRatio(c, s) < 4.5); i++) c = dark ? lighten(c, 0.1) : darken(c, 0.1);
    return c;
  } catch {
    return color;
  }
}

export function buildTheme(mode: PaletteMode, overrides?: { bg?: string; paper?: string; text?: string; primary?: string; primaryText?: string }) {
  const dark = mode === 'dark';
  const bg = overrides?.bg ?? (dark ? '#0f1216' : '#f6f3ec');
  const paper = overrides?.paper ?? (dark ? '#181c22' : '#ffffff');
  // Inside Telegram the primary colour is its button colour, which MUI also writes text in (text and outlined
  // buttons, links, tabs, a focused field's label): Telegram's own blue read 4.1:1 on white, some themes' 3.1–3.6
  // (a walk). As text it is made to read 4.5:1 on the page and on cards; filled buttons keep Telegram's pair.
  const tgButton = overrides?.primary;
  const primary = tgButton ? readableOn(tgButton, [bg, paper], dark) : dark ? '#e0b252' : '#8a5a00';
  const buttonText = tgButton && overrides?.primaryText;
  return createTheme({
    palette: {
      mode,
      // WCAG AA for text on a filled colour: MUI's default (3) keeps white on the light theme's warning
      // orange and the dark theme's error red, both below 4.5:1; with 4.5 it picks dark text there.
      contrastThreshold: 4.5,
      primary: { main: primary, ...(buttonText && primary === tgButton ? { contrastText: buttonText } : {}) },
      secondary: { main: dark ? '#7fb4ff' : '#1d4ea8' },
      // A field's error in a dark dialog: MUI's red (#f44336) read 2.7:1 on the dialog's lighter surface (a walk,
      // 2026-11-28); this one reads 5:1 there and more on cards.
      ...(dark ? { error: { main: '#ff9a92' } } : {}),
      // Orange and blue text on the light theme's white and beige: MUI's #ed6c02 and #0288d1 read 2.8–3.9:1 (an
      // outlined warning button, the «Ожидает» and «Активирован» chips; walk 15); these read 4.7–5.9:1.
      // And MUI's red (#d32f2f) and secondary grey (0.54 black) read 4.48–4.49:1 on the beige page; these read 5.1–5.6:1.
      ...(dark ? {} : { warning: { main: '#b25000' }, info: { main: '#0369a1' }, error: { main: '#c62828' } }),
      background: { default: bg, paper },
      text: { ...(overrides?.text ? { primary: overrides.text } : {}), ...(dark ? {} : { secondary: 'rgba(0, 0, 0, 0.6)' }) },
      // The same grey for unselected toggle buttons and icons, which MUI draws in `action.active`.
      ...(dark ? {} : { action: { active: 'rgba(0, 0, 0, 0.6)' } }),
    },
    shape: { borderRadius: 12 },
    typography: {
      fontFamily: 'system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif',
      h1: { fontSize: '1.75rem', fontWeight: 700 },
      h2: { fontSize: '1.35rem', fontWeight: 700 },
      h3: { fontSize: '1.1rem', fontWeight: 600 },
    },
    components: {
      MuiButton: {
        defaultProps: { disableElevation: true },
        styleOverrides: {
          root: {
            textTransform: 'none',
            fontWeight: 600,
            // Inside Telegram a filled button is Telegram's button colour with its own text colour on it, as Telegram's buttons are.
            ...(tgButton && primary !== tgButton
              ? {
                  variants: [
                    {
                      props: { variant: 'contained', color: 'primary' },
                      style: {
                        '--variant-containedBg': tgButton,
                        '--variant-containedColor': buttonText || '#ffffff',
                        '@media (hover: hover)': { '&:hover': { '--variant-containedBg': dark ? lighten(tgButton, 0.1) : darken(tgButton, 0.1) } },
                      },
                    },
                  ],
                }
              : {}),
          },
        },
      },
      // The safe areas. The app shell (the root's one element, app/layout/app-shell, at least the
      // viewport high) is padded inside: the footer stays clear of the home indicator and a short
      // page does not grow a scroll. Outside Telegram the sticky app bar reaches under the status
      // bar with its content below it; inside Telegram (no app bar) the shell starts below what
      // Telegram reports. Full-screen dialogs (phones) pad their own edges; others keep within.
      MuiCssBaseline: {
        styleOverrides: (theme) => ({
          '#root > div': { ...SAFE_PADDING, paddingTop: TELEGRAM_TOP },
          // index.html's first-paint colours (html[data-theme…] body) outrank CssBaseline's own `body`
          // and stay in the page: the same selectors, later, so the theme's colours win once it renders
          // (Telegram's, or a choice made after the page loaded).
          'html[data-theme] body, html:not([data-theme]) body': {
            backgroundColor: theme.palette.background.default,
            color: theme.palette.text.primary,
          },
        }),
      },
      MuiAppBar: { styleOverrides: { root: { paddingTop: safeInset('top') } } },
      MuiSnackbar: { styleOverrides: { root: { marginTop: safeInset('top'), marginBottom: safeInset('bottom') } } },
      MuiDialog: {
        styleOverrides: {
          paper: { maxWidth: DIALOG_MAX_WIDTH, width: '100%' },
          paperFullScreen: SAFE_PADDING,
          container: ({ ownerState }) => (ownerState.fullScreen ? {} : SAFE_PADDING),
        },
      },
      // Telegram's section colour as it is: no lighter overlay on raised surfaces (dialogs, menus) in a dark theme.
      ...(overrides?.paper ? { MuiPaper: { styleOverrides: { root: { backgroundImage: 'none' } } } } : {}),
      MuiTab: { styleOverrides: { root: { textTransform: 'none', fontWeight: 600 } } },
      MuiToggleButton: { styleOverrides: { root: { textTransform: 'none', fontWeight: 600 } } },
      // MUI's own labels are English; screen readers read these instead.
      MuiAlert: { defaultProps: { closeText: 'Закрыть' } },
      MuiPagination: {
        defaultProps: {
          // MUI's own is English («pagination navigation»), read out by screen readers on every paged list.
          'aria-label': 'Страницы списка',
          getItemAriaLabel: (type, page, selected) =>
            type === 'page' ? (selected ? `Страница ${page}` : `Перейти на страницу ${page}`) : (PAGE_NAV[type] ?? ''),
        },
      },
    },
  });
}
