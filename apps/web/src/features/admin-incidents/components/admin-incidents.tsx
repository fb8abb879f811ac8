import type { AdminCodeIncident, Gamesserver, IncidentResolution } from '@adena/contract';
import Alert from '@mui/material/Alert';
import Button from '@mui/material/Button';
import Chip from '@mui/material/Chip';
import Link from '@mui/material/Link';
import MenuItem from '@mui/material/MenuItem';
import Pagination from '@mui/material/Pagination';
import Paper from '@mui/material/Paper';
import Skeleton from '@mui/material/Skeleton';
import Stack from '@mui/material/Stack';
import Table from '@mui/material/Table';
import TableBody from '@mui/material/TableBody';
import TableCell from '@mui/material/TableCell';
import TableHead from '@mui/material/TableHead';
import TableRow from '@mui/material/TableRow';
import TextField from '@mui/material/TextField';
import Typography from '@mui/material/Typography';
import { useState } from 'react';
import { Link as RouterLink } from 'wouter';
import { ApiError } from '../../../lib/api-client';
import { useUi } from '../../../lib/ui-store';
import { formatAmount } from '../../../utils/format-amount';
import { INCIDENTS_PAGE_SIZE, type IncidentFilters, useAdminIncidents, useIncidentResolutions, useResolveIncident } from '../api/incidents';
import { IdFilterField, parseId } from '../../../components/id-filter-field';
import { oneOf, pageFromUrl, useFiltersInUrl } from '../../../hooks/use-filters-in-url';
import { useListTop } from '../../../hooks/use-list-top';
import { usePageInRange } from '../../../hooks/use-page-in-range';
import { ReasonDialog } from '../../../components/reason-dialog';
import { scrollsSideways } from '../../../components/scrolls-sideways';
import { RefreshFailed } from '../../../components/load-failed';
import { type FocusSpot, useFocusAfterRemoval } from '../../../hooks/use-focus-after-removal';

const dateTime = new Intl.DateTimeFormat('ru-RU', { dateStyle: 'short', timeStyle: 'short' });
const CODE_STATUS = { active: 'активен', activated: 'активирован', cancelled: 'отменён' } as const;

type Person = { id: number; name: string; email: string | null };
function PersonLink({ p }: { p: Person }) {
  return (
    <Link component={RouterLink} to={`/admin/users/${p.id}`}>
      {p.name || p.email || `id ${p.id}`}
    </Link>
  );
}

/** `focusFrom`: the incident's note takes the place of its «Закрыть с заметкой» (useFocusAfterRemoval). */
function ResolveDialog({ incident, onClose, focusFrom }: { incident: AdminCodeIncident | null; onClose(): void; focusFrom(key: number, action: string, to: string): FocusSpot }) {
  const resolve = useResolveIncident();
  const showSnackbar = useUi((s) => s.showSnackbar);
  return (
    <ReasonDialog
      open={incident !== null}
      onClose={onClose}
      title={incident ? `Закрыть инцидент №${incident.id}` : ''}
      refusedTitle={incident ? `Инцидент №${incident.id} не закрыт` : ''}
      testId="resolve-incident-dialog"
      explanation="Что выяснили и что сделали: заметку увидят другие операторы, игроки её не видят."
      label="Заметка"
      field="note"
      confirmLabel="Закрыть инцидент"
      minRows={3}
      submit={(note) => {
        if (!incident) return Promise.resolve();
        const spot = focusFrom(incident.id, 'resolve', 'resolution');
        return resolve.mutateAsync({ id: incident.id, note }).then(
          () => {
            showSnackbar(`Инцидент №${incident.id} закрыт`);
            spot.done();
          },
          (err: unknown) => {
            // Refused because another operator closed it first: their note replaces the button, and focus goes to it.
            spot.back();
            throw err;
          },
        );
      }}
    />
  );
}

const STATES = ['all', 'open', 'acknowledged'] as const;

/** Codes tried again after activation or cancel: the list with filters, each closed with a note. */
export function AdminIncidents({ servers }: { servers: Array<Pick<Gamesserver, 'id' | 'name'>> }) {
  const [f, setF] = useFiltersInUrl<IncidentFilters>(
    (p) => ({
      state: oneOf(p.get('state'), STATES) ?? 'all',
      gamesserver_id: parseId(p.get('gamesserver_id') ?? '') ?? undefined,
      user_id: parseId(p.get('user_id') ?? '') ?? undefined,
      page: pageFromUrl(p.get('page')),
    }),
    (x) => ({ state: x.state === 'all' ? undefined : x.state, gamesserver_id: x.gamesserver_id, user_id: x.user_id, page: x.page > 1 ? x.page : undefined }),
  );
  const [resolving, setResolving] = useState<AdminCodeIncident | null>(null);
  const incidents = useAdminIncidents(f);
  const { data, isPending, isError, error, isPlaceholderData } = incidents;
  const resolutions = useIncidentResolutions(data?.data.map((i) => i.id) ?? []);
  const noteOf = (id: number): IncidentResolution | undefined => resolutions.data?.find((r) => r.incident_id === id);
  // Notes of these incidents that failed stay said while «Повторить» reads them again (the query is pending again
  // meanwhile); another page's notes, still loading, are not said to have failed. Set only on a failure with
  // nothing read, cleared only on a success: a failed re-read keeps the notes it had (error and data at once).
  const idsKey = (data?.data ?? []).map((i) => i.id).join(',');
  const [failedFor, setFailedFor] = useState<string | null>(null);
  if (resolutions.isError && !resolutions.data && failedFor !== idsKey) setFailedFor(idsKey);
  if (resolutions.isSuccess && failedFor !== null) setFailedFor(null);
  const notesUnknown = failedFor === idsKey && !resolutions.data;
  const set = (patch: Partial<IncidentFilters>) => setF((x) => ({ ...x, ...patch, page: patch.page ?? 1 }));
  const pages = usePageInRange(data, INCIDENTS_PAGE_SIZE, f.page, (page) => set({ page }), isPlaceholderData);
  // The pager is under the list: a new page starts at the list's top, not scrolled to its bottom.
  const top = useListTop<HTMLDivElement>(f.page);
  // Closing an incident takes its «Закрыть с заметкой» away (the note takes its place): focus goes to the note, not to
  // the page's top (README «Keyboard and screen-reader users keep their place»).
  const focusFrom = useFocusAfterRemoval('incidents', { busy: resolving !== null });

  return (
    <Stack spacing={2} data-view="admin-incidents" ref={top}>
      <Typography variant="h1">Инциденты</Typography>
      <Typography color="textSecondary">
        Кто-то пытался активировать уже активированный или отменённый код — чаще всего продавец отдал один код двум покупателям.
      </Typography>
      <Stack direction="row" spacing={1} useFlexGap sx={{ flexWrap: 'wrap' }}>
        <TextField select size="small" label="Владелец прочитал" value={f.state} onChange={(e) => set({ state: e.target.value as IncidentFilters['state'] })} sx={{ minWidth: 190 }}>
          <MenuItem value="all">Все</MenuItem>
          <MenuItem value="open">Не прочитан</MenuItem>
          <MenuItem value="acknowledged">Прочитан</MenuItem>
        </TextField>
        <TextField
          select
          size="small"
          label="Сервер"
          value={String(f.gamesserver_id ?? '')}
          onChange={(e) => set({ gamesserver_id: e.target.value ? Number(e.target.value) : undefined })}
          // «Все» is the empty value: displayEmpty shows it, and the label stays above it rather than over it.
          slotProps={{ select: { displayEmpty: true }, inputLabel: { shrink: true } }}
          sx={{ minWidth: 170 }}
        >
          <MenuItem value="">Все</MenuItem>
          {servers.map((s) => (
            <MenuItem key={s.id} value={String(s.id)}>
              {s.name}
            </MenuItem>
          ))}
        </TextField>
        <IdFilterField label="id владельца кода" value={f.user_id} onChange={(user_id) => set({ user_id })} width={200} />
      </Stack>
      {/* A failed re-read keeps the rows already read on screen, with this warning above them. */}
      {isError && data !== undefined && <RefreshFailed query={incidents} testId="incidents-stale" />}
      {isPending ? (
        <Skeleton variant="rounded" height={240} />
      ) : data === undefined ? (
        <Alert severity="error">{error instanceof ApiError ? error.message : 'Не удалось загрузить инциденты'}</Alert>
      ) : data.total === 0 ? (
        <Typography color="textSecondary">Инцидентов нет.</Typography>
      ) : (
        <>
          {notesUnknown && (
            // Said above the table: on a phone the column that says it is off screen to the right.
            <Alert
              severity="warning"
              data-testid="incident-notes-failed"
              action={
                <Button color="inherit" size="small" disabled={resolutions.isFetching} onClick={() => void resolutions.refetch()}>
                  Повторить
                </Button>
              }
            >
              Заметки к инцидентам не загрузились: закрыть инцидент можно, когда они загрузятся.
            </Alert>
          )}
          <Paper variant="outlined" sx={scrollsSideways}>
            <Table size="small" aria-label="Инциденты">
              <TableHead>
                <TableRow>
                  <TableCell>№</TableCell>
                  <TableCell>Когда</TableCell>
                  <TableCell>Код</TableCell>
                  <TableCell>Владелец</TableCell>
                  <TableCell>Кто пытался</TableCell>
                  <TableCell>Владелец прочитал</TableCell>
                  <TableCell sx={{ width: '28%' }}>Решение</TableCell>
                </TableRow>
              </TableHead>
              <TableBody>
                {data.data.map((i) => {
                  const note = noteOf(i.id);
                  return (
                    <TableRow key={i.id} data-testid="admin-incident-row" sx={{ verticalAlign: 'top' }} data-focus-row="incidents" data-focus-key={i.id}>
                      <TableCell>{i.id}</TableCell>
                      <TableCell sx={{ whiteSpace: 'nowrap' }}>{dateTime.format(new Date(i.created_at))}</TableCell>
                      <TableCell>
                        <Link component={RouterLink} to={`/admin/codes?id=${i.code_id}`} sx={{ fontFamily: 'monospace', whiteSpace: 'nowrap' }}>
                          {i.sert}
                        </Link>
                        <Typography variant="body2" color="textSecondary">
                          {i.gamesserver} · {formatAmount(i.nominal)} · {CODE_STATUS[i.code_status]}
                        </Typography>
                      </TableCell>
                      <TableCell>
                        <PersonLink p={i.issuer} />
                      </TableCell>
                      <TableCell>
                        <PersonLink p={i.attempted_by} />
                        {i.attempt_ip && (
                          <Typography variant="body2" color="textSecondary">
                            IP {i.attempt_ip}
                          </Typography>
                        )}
                      </TableCell>
                      <TableCell>
                        {i.acknowledged_at ? dateTime.format(new Date(i.acknowledged_at)) : <Chip size="small" color="warning" variant="outlined" label="нет" />}
                      </TableCell>
                      <TableCell>
                        {note ? (
                          <Stack spacing={0.25} data-testid="incident-resolution" tabIndex={-1} data-focus-action="resolution">
                            <Typography variant="body2">{note.note}</Typography>
                            <Typography variant="body2" color="textSecondary">
                              {note.resolved_by_name || `админ ${note.resolved_by}`} · {dateTime.format(new Date(note.resolved_at))}
                            </Typography>
                          </Stack>
                        ) : notesUnknown ? (
                          // Unknown whether it is closed: no button that may close it twice.
                          <Typography variant="body2" color="textSecondary" data-testid="incident-resolution-unknown">
                            Заметки не загрузились
                          </Typography>
                        ) : resolutions.isPending ? null : (
                          <Button size="small" variant="outlined" onClick={() => setResolving(i)} data-focus-action="resolve">
                            Закрыть с заметкой
                          </Button>
                        )}
                      </TableCell>
                    </TableRow>
                  );
                })}
              </TableBody>
            </Table>
          </Paper>
          {(pages > 1 || f.page > 1) && (
            <Pagination count={pages} page={f.page} onChange={(_, page) => set({ page })} sx={{ alignSelf: 'center' }} />
          )}
        </>
      )}
      <ResolveDialog incident={resolving} onClose={() => setResolving(null)} focusFrom={focusFrom} />
    </Stack>
  );
}
