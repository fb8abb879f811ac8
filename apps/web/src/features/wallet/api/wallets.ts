import { saveNick, wallets, type Wallet } from '@adena/contract';
import { queryOptions, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { request } from '../../../lib/api-client';
import { useUser } from '../../auth/api/session';

export const walletsQueryOptions = () => queryOptions({ queryKey: ['wallets'], queryFn: () => request(wallets) });

export function useWallets() {
  const { isSignedIn } = useUser();
  return useQuery({ ...walletsQueryOptions(), enabled: isSignedIn });
}

export function useWallet(gamesserverId: number | null): Wallet | undefined {
  const { data } = useWallets();
  return data?.find((w) => w.gamesserver_id === gamesserverId);
}

export function useSaveNick() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (body: { gamesserver_id: number; nick: string }) => request(saveNick, { body }),
    onSuccess: () => qc.invalidateQueries({ queryKey: walletsQueryOptions().queryKey }),
  });
}
