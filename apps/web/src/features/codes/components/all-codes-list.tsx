import { type CodeStatus, MY_CODES_PAGE_SIZE } from '@adena/contract';
import Alert from '@mui/material/Alert';
import Button from '@mui/material/Button';
import Chip from '@mui/material/Chip';
import List from '@mui/material/List';
import Pagination from '@mui/material/Pagination';
import Skeleton from '@mui/material/Skeleton';
import Stack from '@mui/material/Stack';
import Typography from '@mui/material/Typography';
import { type ReactNode, useState } from 'react';
import { useMyCodes, useMyCodesWithCode } from '../api/my-codes';
import { CodeItem } from './my-codes-list';
import { needsStepUp } from '../../../lib/step-up';
import { usePageInRange } from '../../../hooks/use-page-in-range';
import { useListTop } from '../../../hooks/use-list-top';

const FILTERS: Array<{ value: CodeStatus | null; label: string }> = [
  { value: null, label: 'Все' },
  { value: 'active', label: 'Активные' },
  { value: 'activated', label: 'Активированные' },
  { value: 'cancelled', label: 'Отменённые' },
];

/** Every code the user issued on the server (GET /api/my_codes): active first, then the newest, filterable by status. */
function AllCodes({ gameServerId }: { gameServerId: number }) {
  const [status, setStatus] = useState<CodeStatus | null>(null);
  const [page, setPage] = useState(1);
  const { data, isPending, isError, error, refetch, isFetching, isPlaceholderData } = useMyCodes(page, gameServerId, status);
  const withCode = useMyCodesWithCode();
  // The list shrank while a later page was open (codes cancelled elsewhere, a filter's codes activated): that
  // page comes back empty with codes before it, so the last page there is is shown instead of a blank.
  const pages = usePageInRange(data, MY_CODES_PAGE_SIZE, page, setPage, isPlaceholderData);
  // The pager is under the list: a new page starts at the list's top, not scrolled to its bottom.
  const top = useListTop<HTMLDivElement>(page);
  // The list is read again on every code_status/del_sert event and on refocus: a re-read refused (the step-up
  // window over, with TOTP on; a 503) keeps the codes on show, said above them, as the history and the
  // statement do, or a code a buyer just activated would stay «Активен» with «Отменить» and copy, silently.
  const stale =
    isError &&
    (needsStepUp(error) ? (
      <Alert
        severity="warning"
        data-testid="all-codes-stale"
        action={
          <Button color="inherit" size="small" disabled={withCode.isPending} onClick={() => withCode.mutate({ page, gameServerId, status })}>
            Ввести код
          </Button>
        }
      >
        Не удалось обновить коды: показаны загруженные раньше. Чтобы обновить их, подтвердите действие кодом из приложения-аутентификатора.
      </Alert>
    ) : (
      <Alert
        severity="warning"
        data-testid="all-codes-stale"
        action={
          <Button color="inherit" size="small" disabled={isFetching} onClick={() => void refetch()}>
            Повторить
          </Button>
        }
      >
        Не удалось обновить коды: показаны загруженные раньше.
      </Alert>
    ));
  return (
    <Stack spacing={1.5} data-testid="all-codes" ref={top}>
      <Stack direction="row" useFlexGap sx={{ flexWrap: 'wrap', gap: 1 }} role="group" aria-label="Статус кода">
        {FILTERS.map((f) => (
          <Chip
            key={f.label}
            label={f.label}
            color={status === f.value ? 'primary' : 'default'}
            variant={status === f.value ? 'filled' : 'outlined'}
            aria-pressed={status === f.value}
            onClick={() => {
              setStatus(f.value);
              setPage(1);
            }}
          />
        ))}
      </Stack>
      {isPending ? (
        <Skeleton variant="rounded" height={120} />
      ) : isError && !data ? (
        needsStepUp(error) ? (
          // With TOTP on the list needs the code (the prompt was cancelled).
          <Stack direction="row" useFlexGap sx={{ alignItems: 'center', flexWrap: 'wrap', gap: 1 }}>
            <Alert severity="info" sx={{ flex: '1 1 16rem' }}>
              Чтобы показать коды, подтвердите действие кодом из приложения-аутентификатора.
            </Alert>
            <Button variant="outlined" onClick={() => void refetch()}>
              Ввести код
            </Button>
          </Stack>
        ) : (
          <Alert severity="error">Не удалось загрузить коды. Обновите страницу.</Alert>
        )
      ) : !data ? null : data.total === 0 ? (
        <>
          {stale}
          {/* The last code under a filter cancelled (its «Отменить» gone with it): focus comes here (useFocusAfterRemoval). */}
          <Typography color="textSecondary" tabIndex={-1} data-focus-list="codes">
            {status === null ? 'Вы ещё не выпускали коды на этом сервере.' : 'Таких кодов нет.'}
          </Typography>
        </>
      ) : (
        <>
          {stale}
          <List disablePadding>
            {data.data.map((c) => (
              <CodeItem key={c.id} code={c} />
            ))}
          </List>
          {pages > 1 && (
            <Pagination count={pages} page={Math.min(page, pages)} onChange={(_, p) => setPage(p)} sx={{ alignSelf: 'center' }} />
          )}
        </>
      )}
    </Stack>
  );
}

/**
 * Below the open codes: the whole list, activated and cancelled ones included, on demand. Expanded, it
 * takes the open codes' place: the whole list holds them too, and each code shows once.
 */
export function AllCodesList({ gameServerId, openCodes }: { gameServerId: number; openCodes: ReactNode }) {
  const [open, setOpen] = useState(false);
  return (
    <>
      {!open && openCodes}
      <Stack spacing={1.5}>
        <Button variant="text" onClick={() => setOpen((o) => !o)} sx={{ alignSelf: 'flex-start' }} aria-expanded={open} data-testid="all-codes-toggle">
          {open ? 'Свернуть список всех кодов' : 'Все мои коды, вместе с активированными и отменёнными'}
        </Button>
        {open && <AllCodes gameServerId={gameServerId} />}
      </Stack>
    </>
  );
}
