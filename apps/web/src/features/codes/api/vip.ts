import type { vip } from '@adena/contract';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { request } from '../../../lib/api-client';
import { userQueryOptions } from '../../../lib/session';
import { walletsQueryOptions } from '../../../lib/wallets';
import { allPriceDataKey } from './price-data';
import { ref } from './ref';

const call = ref<typeof vip>('POST', '/api/vip/');

/** Buys VIP months with coins; the lower code fee applies at once, so prices are read again. */
export function useBuyVip() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: ({ idempotencyKey, ...body }: { months: number; gamesserver_id?: number; price?: number; days?: number; idempotencyKey: string }) =>
      request(call, { body, idempotencyKey }),
    onSuccess: (r) => {
      qc.setQueryData(userQueryOptions().queryKey, r.success);
      void qc.invalidateQueries({ queryKey: walletsQueryOptions().queryKey });
      void qc.invalidateQueries({ queryKey: allPriceDataKey });
    },
  });
}
