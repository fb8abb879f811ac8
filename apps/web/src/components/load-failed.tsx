import { errorMessage } from '@adena/contract/lite';
import Alert from '@mui/material/Alert';
import Button from '@mui/material/Button';
import { ApiError } from '../lib/api-client';

/**
 * A read that failed, said with the server's reason and «Повторить» (never shown as an empty list: a leaked
 * key would look revoked, a webhook as never set).
 */
export function LoadFailed({
  query,
  testId,
  lead,
}: {
  query: { error: unknown; isFetching: boolean; refetch(): unknown };
  testId: string;
  /** What could not be read, said before the reason. */
  lead?: string;
}) {
  return (
    <Alert
      severity="error"
      data-testid={testId}
      action={
        <Button color="inherit" size="small" disabled={query.isFetching} onClick={() => void query.refetch()}>
          Повторить
        </Button>
      }
    >
      {lead && `${lead} `}
      {query.error instanceof ApiError ? query.error.message : errorMessage('INTERNAL')}
    </Alert>
  );
}

const time = new Intl.DateTimeFormat('ru-RU', { timeStyle: 'short' });

/**
 * A re-read that failed while the screen still shows what was read before (TanStack Query keeps `data` and sets
 * `isError`): said above that content with «Повторить», so an open dialog and the reason typed into it stay.
 */
export function RefreshFailed({ query, testId }: { query: { error: unknown; isFetching: boolean; dataUpdatedAt: number; refetch(): unknown }; testId: string }) {
  return (
    <Alert
      severity="warning"
      data-testid={testId}
      action={
        <Button color="inherit" size="small" disabled={query.isFetching} onClick={() => void query.refetch()}>
          Повторить
        </Button>
      }
    >
      Не удалось обновить данные, показаны данные на {time.format(new Date(query.dataUpdatedAt))}.
      {query.error instanceof ApiError && ` ${query.error.message}`}
    </Alert>
  );
}
