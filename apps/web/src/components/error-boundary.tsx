import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
import Typography from '@mui/material/Typography';
import { Component, type ReactNode } from 'react';

/** A script of the build that is gone or unreachable (Chrome, Firefox, Safari; Vite's preload). */
const isChunkError = (e: unknown) => /dynamically imported module|module script|preload/i.test(String((e as Error | null)?.message ?? e));

interface Props {
  /** A new value renders the children again (the page's path: navigating away leaves a failed page). */
  resetKey?: unknown;
  fallback(chunk: boolean): ReactNode;
  children: ReactNode;
}

/**
 * What fails to render (a chunk that would not load twice in a minute, a bug) shows `fallback` in its
 * place, instead of React unmounting the whole app and leaving an empty page (an empty mini app in Telegram).
 */
export class ErrorBoundary extends Component<Props, { failed: boolean; chunk: boolean; key: unknown }> {
  override state = { failed: false, chunk: false, key: this.props.resetKey };
  static getDerivedStateFromError = (e: unknown) => ({ failed: true, chunk: isChunkError(e) });
  static getDerivedStateFromProps = (p: Props, s: { key: unknown }) => (p.resetKey === s.key ? null : { failed: false, key: p.resetKey });
  override render() {
    return this.state.failed ? this.props.fallback(this.state.chunk) : this.props.children;
  }
}

/**
 * «Не удалось загрузить страницу» (or «Что-то пошло не так») with «Повторить», which loads the page
 * afresh: in place of a page, or for a dialog or menu (components/deferred) at the bottom of the page, which stays usable.
 */
export const ErrorNotice = ({ chunk, dialog = false }: { chunk: boolean; dialog?: boolean }) => (
  <Box
    role="alert"
    sx={
      dialog
        ? { position: 'fixed', zIndex: 'snackbar', insetInline: 16, bottom: 'calc(16px + env(safe-area-inset-bottom, 0px))', mx: 'auto', maxWidth: 480, p: 2, borderRadius: 1, boxShadow: 6, bgcolor: 'background.paper' }
        : undefined
    }
  >
    <Typography variant={dialog ? 'body1' : 'h2'} component={dialog ? 'p' : 'h1'} gutterBottom>
      {chunk ? `Не удалось загрузить ${dialog ? 'окно' : 'страницу'}` : 'Что-то пошло не так'}
    </Typography>
    {!dialog && (
      <Typography color="textSecondary" sx={{ mb: 2 }}>
        {chunk ? 'Проверьте подключение к интернету и нажмите «Повторить».' : 'Нажмите «Повторить»: страница загрузится заново.'}
      </Typography>
    )}
    <Button variant="contained" onClick={() => location.reload()}>
      Повторить
    </Button>
  </Box>
);
