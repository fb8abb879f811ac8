import { routes } from '@adena/contract/lite';
import { queryOptions, useQuery } from '@tanstack/react-query';
import { request } from '../../../lib/api-client';
import { useUser } from '../../../lib/session';

/** SPEC.md section 7: error_codes_count above 0 sets the user's has-error-codes flag. */
export const errorUserCodeQueryOptions = () =>
  queryOptions({ queryKey: ['codes', 'error-count'] as const, queryFn: ({ signal }) => request(routes.getErrorUserCode, { signal }) });

/** The user's flag: true while any incident is unacknowledged. */
export function useHasErrorCodes() {
  const { isSignedIn } = useUser();
  const q = useQuery({ ...errorUserCodeQueryOptions(), enabled: isSignedIn });
  return { hasErrorCodes: (q.data?.error_codes_count ?? 0) > 0, count: q.data?.error_codes_count ?? 0 };
}
