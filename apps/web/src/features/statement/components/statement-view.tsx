import type { StatementEntry, StatementKind } from '@adena/contract/lite';
import Download from '@mui/icons-material/FileDownloadOutlined';
import Alert from '@mui/material/Alert';
import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
import List from '@mui/material/List';
import ListItem from '@mui/material/ListItem';
import Pagination from '@mui/material/Pagination';
import Skeleton from '@mui/material/Skeleton';
import Stack from '@mui/material/Stack';
import ToggleButton from '@mui/material/ToggleButton';
import ToggleButtonGroup from '@mui/material/ToggleButtonGroup';
import Typography from '@mui/material/Typography';
import { useState } from 'react';
import { OutlinedNativeSelect } from '../../../components/outlined-native-select';
import { ApiError } from '../../../lib/api-client';
import { useListTop } from '../../../hooks/use-list-top';
import { useGamesservers } from '../../../lib/gamesservers';
import { useUi } from '../../../lib/ui-store';
import { formatAmount } from '../../../utils/format-amount';
import { currencyWord } from '../../../utils/plural';
import { useDownloadStatement } from '../api/download-statement';
import { STATEMENT_PAGE_SIZE, type StatementFilters, useStatement } from '../api/statement';

const KIND_LABEL: Record<StatementKind, string> = {
  deposit: 'Пополнение',
  withdrawal: 'Вывод',
  withdrawal_refund: 'Возврат вывода',
  code_purchase: 'Покупка кода',
  code_refund: 'Возврат за код',
  code_activation: 'Активация кода',
  vip: 'VIP',
  adjustment: 'Корректировка',
};

const dateFormat = new Intl.DateTimeFormat('ru-RU', { dateStyle: 'short', timeStyle: 'short' });

/**
 * A gift code in a line («ADN-7KQ2-****-****-H3RC») or a server's name is kept whole: it moves to a line of its own
 * rather than break at its dashes or spaces, and breaks only where even that line is narrower than it (a phone,
 * a big amount beside it). `nowrap` drew it past its column, over the amount's column (the balance, at 360 px).
 */
const whole = { display: 'inline-block', maxWidth: '100%' } as const;

function unbrokenCodes(text: string) {
  return text.split(/(ADN-[\w*-]+)/).map((part, i) =>
    i % 2 === 1 ? (
      <Box component="span" key={part} sx={whole}>
        {part}
      </Box>
    ) : (
      part
    ),
  );
}

function Entry({ e, server }: { e: StatementEntry; server: string | undefined }) {
  const credit = e.amount > 0;
  return (
    <ListItem
      divider
      data-testid="statement-entry"
      data-kind={e.kind}
      sx={{
        px: 0,
        alignItems: 'start',
        columnGap: 1.5,
        rowGap: 0.25,
        // On a phone the lines wrap: the amount beside the description while both fit, on a line of its own (to the
        // right) when it is too long for that (5 000 ккк beside «Корректировка» broke the word at 360 px); the
        // balance after always on its own line (beside the description it left a 100-px column, with a code drawn
        // over «остаток …»). Wider, a grid: the balance under the amount.
        display: { xs: 'flex', sm: 'grid' },
        flexWrap: 'wrap',
        gridTemplateColumns: 'minmax(0, 1fr) auto',
        gridTemplateAreas: '"main amount" "main balance"',
        gridTemplateRows: 'auto 1fr',
      }}
    >
      <Stack spacing={0.25} sx={{ gridArea: 'main', flex: '1 1 9rem', minWidth: 'min-content', overflowWrap: 'anywhere' }}>
        {/* Never broken inside the word: the column is at least this wide (minWidth above). */}
        <Typography sx={{ fontWeight: 600, overflowWrap: 'normal' }}>{KIND_LABEL[e.kind]}</Typography>
        <Typography variant="body2">{unbrokenCodes(e.description)}</Typography>
        <Typography variant="body2" color="textSecondary">
          {dateFormat.format(new Date(e.at))}
          {server && (
            <>
              {' · '}
              <Box component="span" sx={whole}>
                {server}
              </Box>
            </>
          )}
        </Typography>
      </Stack>
      <Stack spacing={0.25} sx={{ gridArea: 'amount', flex: '0 0 auto', ml: 'auto', alignItems: 'flex-end', textAlign: 'right' }}>
        <Typography data-testid="statement-amount" sx={{ fontWeight: 700, color: credit ? 'success.main' : 'text.primary', whiteSpace: 'nowrap' }}>
          {credit ? '+' : '−'}
          {formatAmount(Math.abs(e.amount))}
        </Typography>
        <Typography variant="caption" color="textSecondary" sx={{ whiteSpace: 'nowrap' }}>
          {/* The word agrees with the amount above it: +301 монета эйнхасад, −5 аден. */}
          {currencyWord(Math.abs(e.amount), e.currency_type)}
        </Typography>
      </Stack>
      <Typography
        variant="body2"
        color="textSecondary"
        data-testid="statement-balance"
        sx={{ gridArea: 'balance', flexBasis: '100%', justifySelf: 'end', textAlign: 'right', whiteSpace: 'nowrap' }}
      >
        остаток {formatAmount(e.balance_after)}
      </Typography>
    </ListItem>
  );
}

/** The player's statement: every movement of their wallets, newest first, with the balance after each. */
export function StatementView({ initialServerId }: { initialServerId: number | null }) {
  const { data: servers } = useGamesservers();
  const [filters, setFilters] = useState<StatementFilters>({ gameServerId: initialServerId, currency: null });
  const [page, setPage] = useState(1);
  // The pager is under the list: a new page starts at the list's top, not scrolled to its bottom.
  const top = useListTop<HTMLDivElement>(page);
  const { data, isPending, isError, isFetching, refetch } = useStatement(page, filters);
  const download = useDownloadStatement();
  const alert = useUi((s) => s.alert);
  const setFilter = (f: Partial<StatementFilters>) => {
    setFilters((cur) => ({ ...cur, ...f }));
    setPage(1);
  };
  // A server closed since lists no more; its lines still say which one it was.
  const serverName = (id: number) => servers?.find((s) => s.id === id)?.name ?? `Сервер №${id}`;
  // An empty list under filters names the filters actually set, not every filter there is.
  const emptyText = (() => {
    const where = filters.gameServerId === null ? '' : `На сервере ${serverName(filters.gameServerId)} `;
    const what = filters.currency === null ? '' : filters.currency === 1 ? ' по адене' : ' по монетам эйнхасад';
    if (!where && !what) return 'Движений по балансу пока нет. Пополните кошелёк — зачисление появится здесь.';
    return `${where}${where ? 'движений' : 'Движений'}${what} нет.`;
  })();

  const retry = (
    <Button color="inherit" size="small" disabled={isFetching} onClick={() => void refetch()}>
      Повторить
    </Button>
  );
  // The statement is read again after every `balance` event, on refocus and once stale: one failed re-read (a
  // service restart) keeps the list on show with a warning above it; the error alone is for nothing read yet.
  const stale = isError && (
    <Alert severity="warning" data-testid="statement-stale" action={retry}>
      Не удалось обновить выписку: показана загруженная раньше.
    </Alert>
  );

  return (
    <Stack spacing={2} data-testid="statement" ref={top}>
      <Stack direction={{ xs: 'column', sm: 'row' }} spacing={1.5} sx={{ alignItems: { sm: 'center' } }}>
        <OutlinedNativeSelect
          id="statement-server"
          label="Сервер"
          value={filters.gameServerId === null ? '' : String(filters.gameServerId)}
          onChange={(ev) => setFilter({ gameServerId: ev.target.value ? Number(ev.target.value) : null })}
          data-testid="statement-server"
        >
          <option value="">Все серверы</option>
          {servers?.map((s) => (
            <option key={s.id} value={s.id}>
              {s.name}
            </option>
          ))}
        </OutlinedNativeSelect>
        <ToggleButtonGroup
          exclusive
          size="small"
          value={filters.currency ?? 0}
          onChange={(_, v: 0 | 1 | 2 | null) => v !== null && setFilter({ currency: v === 0 ? null : v })}
          aria-label="Валюта"
          sx={{ flexShrink: 0 }}
        >
          <ToggleButton value={0}>Все</ToggleButton>
          <ToggleButton value={1}>Адена</ToggleButton>
          <ToggleButton value={2}>Монеты эйнхасад</ToggleButton>
        </ToggleButtonGroup>
        <Button
          variant="outlined"
          startIcon={<Download />}
          disabled={download.isPending}
          sx={{ flexShrink: 0, whiteSpace: 'nowrap' }}
          onClick={() =>
            download.mutate(
              { gameServerId: filters.gameServerId, currency: filters.currency },
              { onError: (err) => alert(err instanceof ApiError ? err.message : 'Не удалось скачать выписку') },
            )
          }
        >
          Скачать CSV
        </Button>
      </Stack>
      {/* The screen shows the device's time; the file Moscow's (its «Дата (МСК)» column, the service's day). */}
      <Typography variant="caption" color="textSecondary" data-testid="statement-csv-hint" sx={{ mt: -1, alignSelf: { sm: 'flex-end' } }}>
        Даты и время в файле — по Москве (МСК).
      </Typography>
      {isPending ? (
        <Skeleton variant="rounded" height={200} />
      ) : !data ? (
        <Alert severity="error" data-testid="statement-error" action={retry}>
          Не удалось загрузить выписку. Проверьте подключение и повторите.
        </Alert>
      ) : data.total === 0 ? (
        <>
          {stale}
          <Typography color="textSecondary" data-testid="statement-empty">
            {emptyText}
          </Typography>
        </>
      ) : (
        <>
          {stale}
          <List disablePadding>
            {data.data.map((e) => (
              <Entry key={e.id} e={e} server={filters.gameServerId === null ? serverName(e.gamesserver_id) : undefined} />
            ))}
          </List>
          {data.total > STATEMENT_PAGE_SIZE && (
            <Pagination count={Math.ceil(data.total / STATEMENT_PAGE_SIZE)} page={page} onChange={(_, p) => setPage(p)} sx={{ alignSelf: 'center' }} />
          )}
        </>
      )}
    </Stack>
  );
}
