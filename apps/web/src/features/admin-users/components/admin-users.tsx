import type { AdminUser } from '@adena/contract';
import Search from '@mui/icons-material/Search';
import Alert from '@mui/material/Alert';
import Chip from '@mui/material/Chip';
import InputAdornment from '@mui/material/InputAdornment';
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
import { useDeferredValue } from 'react';
import { Link as RouterLink, useLocation } from 'wouter';
import { oneOf, pageFromUrl, useFiltersInUrl } from '../../../hooks/use-filters-in-url';
import { useListTop } from '../../../hooks/use-list-top';
import { usePageInRange } from '../../../hooks/use-page-in-range';
import { ApiError } from '../../../lib/api-client';
import { formatAmount } from '../../../utils/format-amount';
import { USERS_PAGE_SIZE, type UserSearch, useAdminUsers } from '../api/users';
import { scrollsSideways } from '../../../components/scrolls-sideways';
import { RefreshFailed } from '../../../components/load-failed';

const date = new Intl.DateTimeFormat('ru-RU', { dateStyle: 'short' });

export function UserChips({ u }: { u: AdminUser }) {
  return (
    <Stack direction="row" spacing={0.5} useFlexGap sx={{ flexWrap: 'wrap' }}>
      {u.admin && <Chip size="small" color="primary" label="Админ" />}
      {u.vip && u.vip_until && <Chip size="small" color="secondary" label={`VIP до ${date.format(new Date(u.vip_until))}`} />}
      {u.blocked_at && <Chip size="small" color="error" label="Заблокирован" />}
    </Stack>
  );
}

const ROLES = ['admin', 'vip', 'blocked'] as const;
const SEARCH_KEYS = ['q', 'role', 'page'] as const;
const toUrl = (x: UserSearch) => ({ q: x.q, role: x.role, page: x.page > 1 ? x.page : undefined });

/** `?q=…&role=…&page=…` of a search as its address says it, or '' for the bare list. */
function searchString(x: UserSearch) {
  const p = new URLSearchParams();
  for (const [k, v] of Object.entries(toUrl(x))) if (v !== undefined && v !== '') p.set(k, String(v));
  const s = p.toString();
  return s ? `?${s}` : '';
}

/**
 * The search a user's card was opened from, out of the card's own address (`useSearch()`, no «?»): the row's link
 * carries it there, and «К поиску» goes back to the same search, filter and page rather than an empty list.
 */
export function searchBack(cardSearch: string) {
  const from = new URLSearchParams(cardSearch);
  const p = new URLSearchParams();
  for (const k of SEARCH_KEYS) {
    const v = from.get(k);
    if (v) p.set(k, v);
  }
  const s = p.toString();
  return s ? `?${s}` : '';
}

/** Search by email, phone, name, id, Telegram or Discord id; each row opens the user's card. */
export function AdminUsers() {
  const [s, setS] = useFiltersInUrl<UserSearch>(
    (p) => ({ q: p.get('q') ?? '', role: oneOf(p.get('role'), ROLES), page: pageFromUrl(p.get('page')) }),
    toUrl,
  );
  const [, navigate] = useLocation();
  const deferred = useDeferredValue(s);
  const users = useAdminUsers(deferred);
  const { data, isPending, isError, error, isPlaceholderData } = users;
  const set = (patch: Partial<UserSearch>) => setS((x) => ({ ...x, ...patch, page: patch.page ?? 1 }));
  // A card opened from here carries the search in its address, for its «К поиску».
  const cardOf = (u: AdminUser) => `/admin/users/${u.id}${searchString(s)}`;
  const pages = usePageInRange(data, USERS_PAGE_SIZE, deferred.page, (page) => set({ page }), isPlaceholderData);
  // The pager is under the list: a new page starts at the list's top, not scrolled to its bottom.
  const top = useListTop<HTMLDivElement>(s.page);
  return (
    <Stack spacing={2} data-view="admin-users" ref={top}>
      <Typography variant="h1">Пользователи</Typography>
      <Stack direction={{ xs: 'column', sm: 'row' }} spacing={1}>
        <TextField
          size="small"
          label="Поиск"
          placeholder="email, телефон, имя, id, Telegram или Discord id"
          value={s.q}
          onChange={(e) => set({ q: e.target.value })}
          sx={{ flex: 1, maxWidth: 520 }}
          slotProps={{ input: { startAdornment: <InputAdornment position="start"><Search fontSize="small" /></InputAdornment> } }}
        />
        <TextField select size="small" label="Кто" value={s.role ?? ''} onChange={(e) => set({ role: (e.target.value || undefined) as UserSearch['role'] })} slotProps={{ select: { displayEmpty: true }, inputLabel: { shrink: true } }} sx={{ minWidth: 180 }}>
          <MenuItem value="">Все</MenuItem>
          <MenuItem value="admin">Администраторы</MenuItem>
          <MenuItem value="vip">VIP</MenuItem>
          <MenuItem value="blocked">Заблокированные</MenuItem>
        </TextField>
      </Stack>
      {/* A failed re-read keeps the rows already read on screen, with this warning above them. */}
      {isError && data !== undefined && <RefreshFailed query={users} testId="users-stale" />}
      {isPending ? (
        <Skeleton variant="rounded" height={240} />
      ) : data === undefined ? (
        <Alert severity="error">{error instanceof ApiError ? error.message : 'Не удалось загрузить пользователей'}</Alert>
      ) : data.total === 0 ? (
        <Typography color="textSecondary">Никого не нашли.</Typography>
      ) : (
        <>
          <Typography variant="body2" color="textSecondary">
            Найдено: {formatAmount(data.total)}
          </Typography>
          <Paper variant="outlined" sx={scrollsSideways}>
            <Table size="small" aria-label="Пользователи">
              <TableHead>
                <TableRow>
                  <TableCell>id</TableCell>
                  <TableCell>Имя</TableCell>
                  <TableCell>Email / телефон</TableCell>
                  <TableCell>Telegram / Discord</TableCell>
                  <TableCell>Статус</TableCell>
                  <TableCell>С нами с</TableCell>
                </TableRow>
              </TableHead>
              <TableBody>
                {data.data.map((u) => (
                  // A click anywhere on the row opens the card; the name is the link (keyboard, a new tab). The row
                  // itself stays a <tr>: an <a> row put its cells outside any valid table structure.
                  <TableRow key={u.id} hover onClick={() => navigate(cardOf(u))} data-testid="admin-user-row" sx={{ cursor: 'pointer' }}>
                    <TableCell>{u.id}</TableCell>
                    <TableCell>
                      <Link component={RouterLink} to={cardOf(u)} onClick={(e: React.MouseEvent) => e.stopPropagation()}>
                        {u.name || 'без имени'}
                      </Link>
                    </TableCell>
                    <TableCell>
                      {u.email ?? ''}
                      {u.email && u.phone ? <br /> : null}
                      {u.phone ?? ''}
                    </TableCell>
                    <TableCell>
                      {u.telegram_id ? `tg ${u.telegram_id}` : ''}
                      {u.telegram_id && u.discord_id ? <br /> : null}
                      {u.discord_id ? `ds ${u.discord_id}` : ''}
                    </TableCell>
                    <TableCell>
                      <UserChips u={u} />
                    </TableCell>
                    <TableCell>{date.format(new Date(u.created_at))}</TableCell>
                  </TableRow>
                ))}
              </TableBody>
            </Table>
          </Paper>
          {(pages > 1 || s.page > 1) && (
            <Pagination count={pages} page={s.page} onChange={(_, page) => set({ page })} sx={{ alignSelf: 'center' }} />
          )}
        </>
      )}
    </Stack>
  );
}
