import { adminUsers } from '@adena/contract';
import { queryOptions, useQuery } from '@tanstack/react-query';
import { request } from '../../../lib/api-client';

/**
 * The operators (users with the admin flag, the first 100), for the names of the operators an audit entry holds
 * by id (claimed_by, processed_by, claim_dropped_by) whom no entry on the page was written by.
 */
export const auditOperatorsQueryOptions = () =>
  queryOptions({
    queryKey: ['admin', 'users', 'operators'],
    queryFn: () => request(adminUsers, { query: { role: 'admin', per_page: 100 } }),
    staleTime: 60_000,
  });

/** Asked only while `wanted`: when some operator id of the page has no name from the page itself. */
export const useAuditOperators = (wanted: boolean) => useQuery({ ...auditOperatorsQueryOptions(), enabled: wanted });
