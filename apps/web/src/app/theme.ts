import { createTheme, type PaletteMode } from '@mui/material/styles';
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

export function buildTheme(mode: PaletteMode, overrides?: { bg?: string; paper?: string; text?: string; primary?: string }) {
  const dark = mode === 'dark';
  return createTheme({
    palette: {
      mode,
      primary: { main: overrides?.primary ?? (dark ? '#e0b252' : '#8a5a00') },
      secondary: { main: dark ? '#7fb4ff' : '#1d4ea8' },
      background: {
        default: overrides?.bg ?? (dark ? '#0f1216' : '#f6f3ec'),
        paper: overrides?.paper ?? (dark ? '#181c22' : '#ffffff'),
      },
      ...(overrides?.text ? { text: { primary: overrides.text } } : {}),
    },
    shape: { borderRadius: 12 },
    typography: {
      fontFamily: 'system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif',
      h1: { fontSize: '1.75rem', fontWeight: 700 },
      h2: { fontSize: '1.35rem', fontWeight: 700 },
      h3: { fontSize: '1.1rem', fontWeight: 600 },
    },
    components: {
      MuiButton: { defaultProps: { disableElevation: true }, styleOverrides: { root: { textTransform: 'none', fontWeight: 600 } } },
      MuiDialog: { styleOverrides: { paper: { maxWidth: DIALOG_MAX_WIDTH, width: '100%' } } },
      MuiTab: { styleOverrides: { root: { textTransform: 'none', fontWeight: 600 } } },
      MuiToggleButton: { styleOverrides: { root: { textTransform: 'none', fontWeight: 600 } } },
      // MUI's own labels are English; screen readers read these instead.
      MuiAlert: { defaultProps: { closeText: 'Закрыть' } },
      MuiPagination: {
        defaultProps: {
          getItemAriaLabel: (type, page, selected) =>
            type === 'page' ? (selected ? `Страница ${page}` : `Перейти на страницу ${page}`) : (PAGE_NAV[type] ?? ''),
        },
      },
    },
  });
}
