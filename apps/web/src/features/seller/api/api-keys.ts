import { createApiKey, type CreateApiKeyBody, deleteApiKey, listApiKeys } from '@adena/contract';
import { queryOptions, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { request } from '../../../lib/api-client';
import { withStepUp } from '../../../lib/step-up';

export const apiKeysQueryOptions = () => queryOptions({ queryKey: ['seller', 'api-keys'], queryFn: () => request(listApiKeys), staleTime: 0 });
export const useApiKeys = () => useQuery(apiKeysQueryOptions());

export function useCreateApiKey() {
  const qc = useQueryClient();
  return useMutation({
    // A key issues codes with no second factor: with TOTP on, creating one asks for the code; without
    // it the body carries the current password (an account signed in by Discord or Telegram leaves it out).
    mutationFn: (body: CreateApiKeyBody) => withStepUp((twoFactorCode) => request(createApiKey, { body, twoFactorCode })),
    onSuccess: () => qc.invalidateQueries({ queryKey: apiKeysQueryOptions().queryKey }),
  });
}

export function useRevokeApiKey() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (id: number) => request(deleteApiKey, { params: { id } }),
    // Read again whatever the answer: a revoke whose answer was lost may have gone through.
    onSettled: () => qc.invalidateQueries({ queryKey: apiKeysQueryOptions().queryKey }),
  });
}
