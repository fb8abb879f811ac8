import Button from '@mui/material/Button';
import Chip from '@mui/material/Chip';
import List from '@mui/material/List';
import ListItem from '@mui/material/ListItem';
import ListItemText from '@mui/material/ListItemText';
import Stack from '@mui/material/Stack';
import Typography from '@mui/material/Typography';
import type { Session } from '@adena/contract/lite';
import { LoadFailed, RefreshFailed } from '../../../components/load-failed';
import { useFocusAfterRemoval } from '../../../hooks/use-focus-after-removal';
import { useUi } from '../../../lib/ui-store';
import { useEndOtherSessions } from '../api/end-other-sessions';
import { useEndSession } from '../api/end-session';
import { useSessions } from '../api/list-sessions';
import { deviceName, methodText } from '../utils/device';

const dateTime = new Intl.DateTimeFormat('ru-RU', { dateStyle: 'short', timeStyle: 'short' });

/** «Сеансы»: every device signed in to the account; end one, or all but this one. */
export function SessionsList() {
  const sessions = useSessions();
  const endOne = useEndSession();
  const endOthers = useEndOtherSessions();
  const snackbar = useUi((s) => s.showSnackbar);
  const list = sessions.data ?? [];
  const others = list.filter((s) => !s.current).length;
  // An ended session's row leaves with its button: focus goes to the next row's «Завершить» (the previous one's
  // after the last), or to the list when no other session is left; a failed call gives it back to the button.
  const focusFrom = useFocusAfterRemoval('sessions', { busy: endOne.isPending || endOthers.isPending });

  const end = async (s: Session) => {
    const spot = focusFrom(s.id, 'end');
    try {
      await endOne.mutateAsync(s.id);
      snackbar(`Сеанс «${deviceName(s.user_agent)}» завершён`);
      spot.done();
    } catch (err) {
      snackbar((err as Error).message, 'error');
      spot.back();
    }
  };
  const endAll = async () => {
    const spot = focusFrom('others', 'end-others');
    try {
      const { ended } = await endOthers.mutateAsync();
      snackbar(ended ? `Завершено сеансов: ${ended.toLocaleString('ru-RU')}` : 'Других сеансов нет');
      spot.done();
    } catch (err) {
      snackbar((err as Error).message, 'error');
      spot.back();
    }
  };

  return (
    <Stack spacing={1} component="section" aria-labelledby="sessions-title">
      <Stack
        direction="row"
        spacing={1}
        useFlexGap
        sx={{ alignItems: 'center', justifyContent: 'space-between', flexWrap: 'wrap', rowGap: 1 }}
        data-focus-row="sessions"
        data-focus-key="others"
      >
        <Typography variant="h3" id="sessions-title" sx={{ fontSize: '1.125rem', fontWeight: 600 }}>
          Сеансы
        </Typography>
        {others > 0 && (
          <Button color="error" variant="outlined" size="small" onClick={endAll} disabled={endOthers.isPending} data-focus-action="end-others">
            Завершить все остальные
          </Button>
        )}
      </Stack>
      {/* A list never read says why with «Повторить»; a re-read that failed keeps the list read before under a warning. */}
      {sessions.isError &&
        (sessions.data ? <RefreshFailed query={sessions} testId="sessions-stale" /> : <LoadFailed query={sessions} testId="sessions-load-error" />)}
      <List disablePadding aria-label="Сеансы" tabIndex={-1} data-focus-list="sessions">
        {list.map((s, i) => (
          <ListItem
            key={s.id}
            // The section draws its own rule under the list: the last row's was a second one.
            divider={i < list.length - 1}
            disableGutters
            sx={{ gap: 1, alignItems: 'flex-start', flexWrap: { xs: 'wrap', sm: 'nowrap' } }}
            data-testid="session"
            data-focus-row="sessions"
            data-focus-key={s.id}
          >
            <ListItemText
              sx={{ flex: '1 1 auto', minWidth: 0, m: 0 }}
              primary={
                <Stack direction="row" spacing={1} component="span" sx={{ alignItems: 'center' }}>
                  <span>{deviceName(s.user_agent)}</span>
                  {s.current && <Chip label="Этот сеанс" size="small" color="primary" variant="outlined" />}
                </Stack>
              }
              secondary={
                <>
                  {methodText(s.method)}
                  {s.ip ? ` · ${s.ip}` : ''}
                  <br />
                  {s.current ? 'Активен сейчас' : `Был активен ${dateTime.format(new Date(s.last_seen_at))}`} · вход {dateTime.format(new Date(s.created_at))}
                </>
              }
              slotProps={{ primary: { component: 'div' }, secondary: { component: 'div' } }}
            />
            {!s.current && (
              <Button
                size="small"
                onClick={() => end(s)}
                disabled={endOne.isPending}
                aria-label={`Завершить сеанс «${deviceName(s.user_agent)}»`}
                data-focus-action="end"
              >
                Завершить
              </Button>
            )}
          </ListItem>
        ))}
      </List>
    </Stack>
  );
}
