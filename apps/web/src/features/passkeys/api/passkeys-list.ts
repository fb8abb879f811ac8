import { passkeysList } from '@adena/contract';
import { queryOptions, useQuery } from '@tanstack/react-query';
import { request } from '../../../lib/api-client';

export const passkeysQueryOptions = () => queryOptions({ queryKey: ['passkeys'], queryFn: () => request(passkeysList) });
export const usePasskeys = () => useQuery(passkeysQueryOptions());
