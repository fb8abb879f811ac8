import type { AdminAuditEntry } from '@adena/contract';
import Alert from '@mui/material/Alert';
import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
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
import { useDeferredValue, useMemo } from 'react';
import { Link as RouterLink } from 'wouter';
import { ApiError } from '../../../lib/api-client';
import { IdFilterField, parseId } from '../../../components/id-filter-field';
import { oneOf, pageFromUrl, useFiltersInUrl } from '../../../hooks/use-filters-in-url';
import { useListTop } from '../../../hooks/use-list-top';
import { usePageInRange } from '../../../hooks/use-page-in-range';
import { scrollsSideways } from '../../../components/scrolls-sideways';
import { RefreshFailed } from '../../../components/load-failed';
import { AUDIT_PAGE_SIZE, type AuditFilters, useAdminAuditLog } from '../api/audit-log';
import { useAuditOperators } from '../api/operators';
import { AUDIT_ACTIONS, AUDIT_FIELDS, auditActionLabel } from '../utils/actions';
import { auditValue, type OperatorNames, operatorIdsIn, operatorNames } from '../utils/values';

const dateTime = new Intl.DateTimeFormat('ru-RU', { dateStyle: 'short', timeStyle: 'medium' });

const ENTITIES: Record<string, string> = {
  gamesserver: 'Сервер',
  user: 'Пользователь',
  code_incident: 'Инцидент',
  balance_request: 'Заявка',
  code: 'Код',
};

/**
 * Only what changed: «Комиссия за код, б.п.: 300 → 450»; a creation or a note lists what was written.
 * A field the list does not know yet shows as its key; an operator by name («Обработал: — → Анна»).
 */
function Changes({ e, names }: { e: AdminAuditEntry; names: OperatorNames }) {
  const before = (e.before ?? {}) as Record<string, unknown>;
  const after = (e.after ?? {}) as Record<string, unknown>;
  const keys = [...new Set([...Object.keys(before), ...Object.keys(after)])].filter(
    (k) => JSON.stringify(before[k]) !== JSON.stringify(after[k]),
  );
  if (keys.length === 0) return <Typography color="textSecondary">без изменений</Typography>;
  const created = e.before === null;
  return (
    // Words wrap at their spaces; only a long unbroken value (a URL, a token) is cut where it must. A date keeps
    // its date and time together (auditValue), and the column never narrows below 260 px (the header's minWidth).
    <Box component="ul" sx={{ m: 0, pl: 2, fontSize: '0.875rem', overflowWrap: 'anywhere' }}>
      {keys.slice(0, created ? 6 : 20).map((k) => (
        <li key={k}>
          {AUDIT_FIELDS[k] ?? <code>{k}</code>}: {created ? auditValue(e.entity_type, k, after[k], names) : `${auditValue(e.entity_type, k, before[k], names)} → ${auditValue(e.entity_type, k, after[k], names)}`}
        </li>
      ))}
      {created && keys.length > 6 && <li>…и ещё {keys.length - 6}</li>}
    </Box>
  );
}

/**
 * «Пользователь №3 · Анна», «Сервер №2 · Scryde x50»: a number written as every other reference writes it, with the
 * name the entry carries, or a user's from the page's operator names when the entry carries none.
 */
function entityLink(e: AdminAuditEntry, names: OperatorNames) {
  const named = (e.after ?? e.before) as { name?: unknown } | null;
  const numeric = /^\d+$/.test(e.entity_id);
  const name =
    typeof named?.name === 'string' && named.name !== '' ? named.name : e.entity_type === 'user' && numeric ? names.get(Number(e.entity_id)) : undefined;
  const label = `${ENTITIES[e.entity_type] ?? e.entity_type} ${numeric ? '№' : ''}${e.entity_id}${name ? ` · ${name}` : ''}`;
  if (e.entity_type === 'user') return <Link component={RouterLink} to={`/admin/users/${e.entity_id}`}>{label}</Link>;
  return label;
}

/** The users the entries are about who are or were operators (`admin` in before or after): the operators list names them. */
function operatorUsersIn(entries: readonly AdminAuditEntry[]): number[] {
  const isAdmin = (side: unknown) => typeof side === 'object' && side !== null && (side as { admin?: unknown }).admin === true;
  return entries.filter((e) => e.entity_type === 'user' && /^\d+$/.test(e.entity_id) && (isAdmin(e.before) || isAdmin(e.after))).map((e) => Number(e.entity_id));
}

/** Every admin action: who, when, what, before and after. Read-only. */
export function AdminAuditLog() {
  const [f, setF] = useFiltersInUrl<AuditFilters>(
    (p) => ({
      admin_id: parseId(p.get('admin_id') ?? '') ?? undefined,
      entity_type: oneOf(p.get('entity_type'), Object.keys(ENTITIES)),
      // Every object the log names has a number for its id (a user, a request, a server, a code, an incident).
      entity_id: parseId(p.get('entity_id') ?? '')?.toString(),
      action: oneOf(p.get('action'), Object.keys(AUDIT_ACTIONS)),
      page: pageFromUrl(p.get('page')),
    }),
    (x) => ({ admin_id: x.admin_id, entity_type: x.entity_type, entity_id: x.entity_id, action: x.action, page: x.page > 1 ? x.page : undefined }),
  );
  const deferred = useDeferredValue(f);
  const log = useAdminAuditLog(deferred);
  const { data, isPending, isError, error, isPlaceholderData } = log;
  const set = (patch: Partial<AuditFilters>) => setF((x) => ({ ...x, ...patch, page: patch.page ?? 1 }));
  const pages = usePageInRange(data, AUDIT_PAGE_SIZE, deferred.page, (page) => set({ page }), isPlaceholderData);
  // The pager is under the list: a new page starts at the list's top, not scrolled to its bottom.
  const top = useListTop<HTMLDivElement>(f.page);
  const filtered = Boolean(f.admin_id || f.entity_type || f.entity_id || f.action);
  // Operators the entries hold by id, named from the page's own authors; the operators list only for the rest.
  const fromPage = useMemo(() => operatorNames(data?.data ?? []), [data]);
  const unnamed = useMemo(
    () => [...operatorIdsIn(data?.data ?? []), ...operatorUsersIn(data?.data ?? [])].some((id) => !fromPage.has(id)),
    [data, fromPage],
  );
  const operators = useAuditOperators(unnamed);
  const names = useMemo(() => (operators.data ? operatorNames(data?.data ?? [], operators.data.data) : fromPage), [data, fromPage, operators.data]);
  return (
    <Stack spacing={2} data-view="admin-audit" ref={top}>
      <Typography variant="h1">Журнал действий</Typography>
      <Stack direction="row" spacing={1} useFlexGap sx={{ flexWrap: 'wrap' }}>
        <IdFilterField label="id администратора" value={f.admin_id} onChange={(admin_id) => set({ admin_id })} width={190} />
        <TextField select size="small" label="Объект" value={f.entity_type ?? ''} onChange={(e) => set({ entity_type: e.target.value || undefined })} slotProps={{ select: { displayEmpty: true }, inputLabel: { shrink: true } }} sx={{ minWidth: 170 }}>
          <MenuItem value="">Все</MenuItem>
          {Object.entries(ENTITIES).map(([v, l]) => (
            <MenuItem key={v} value={v}>
              {l}
            </MenuItem>
          ))}
        </TextField>
        <IdFilterField
          label="id объекта"
          value={f.entity_id === undefined ? undefined : Number(f.entity_id)}
          onChange={(id) => set({ entity_id: id?.toString() })}
          width={150}
        />
        <TextField select size="small" label="Действие" value={f.action ?? ''} onChange={(e) => set({ action: e.target.value || undefined })} slotProps={{ select: { displayEmpty: true }, inputLabel: { shrink: true } }} sx={{ minWidth: 220 }}>
          <MenuItem value="">Все</MenuItem>
          {Object.entries(AUDIT_ACTIONS).map(([v, l]) => (
            <MenuItem key={v} value={v}>
              {l}
            </MenuItem>
          ))}
        </TextField>
        {filtered && <Button onClick={() => setF({ page: 1 })}>Сбросить</Button>}
      </Stack>
      {/* A failed re-read keeps the rows already read on screen, with this warning above them. */}
      {isError && data !== undefined && <RefreshFailed query={log} testId="audit-stale" />}
      {isPending ? (
        <Skeleton variant="rounded" height={260} />
      ) : data === undefined ? (
        <Alert severity="error">{error instanceof ApiError ? error.message : 'Не удалось загрузить журнал'}</Alert>
      ) : data.total === 0 ? (
        <Typography color="textSecondary">Записей нет.</Typography>
      ) : (
        <>
          <Paper variant="outlined" sx={scrollsSideways}>
            <Table size="small" aria-label="Журнал действий">
              <TableHead>
                <TableRow>
                  <TableCell>Когда</TableCell>
                  <TableCell>Кто</TableCell>
                  <TableCell>Действие</TableCell>
                  <TableCell>Объект</TableCell>
                  <TableCell sx={{ width: '40%', minWidth: 260 }}>Что изменилось</TableCell>
                </TableRow>
              </TableHead>
              <TableBody>
                {data.data.map((e) => (
                  <TableRow key={e.id} data-testid="audit-row" sx={{ verticalAlign: 'top' }}>
                    <TableCell sx={{ whiteSpace: 'nowrap' }}>{dateTime.format(new Date(e.created_at))}</TableCell>
                    <TableCell>
                      {e.admin_name || e.admin_email || '—'}
                      <Typography variant="body2" color="textSecondary">
                        id {e.admin_id}
                      </Typography>
                    </TableCell>
                    <TableCell>
                      {auditActionLabel(e.action)}
                    </TableCell>
                    <TableCell sx={{ whiteSpace: 'nowrap' }}>{entityLink(e, names)}</TableCell>
                    <TableCell>
                      <Changes e={e} names={names} />
                    </TableCell>
                  </TableRow>
                ))}
              </TableBody>
            </Table>
          </Paper>
          {(pages > 1 || f.page > 1) && (
            <Pagination count={pages} page={f.page} onChange={(_, page) => set({ page })} sx={{ alignSelf: 'center' }} />
          )}
        </>
      )}
    </Stack>
  );
}
