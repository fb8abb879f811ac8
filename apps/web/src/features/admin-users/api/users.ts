import { adminBlockUser, adminSetUserAdmin, adminSetUserVip, adminUnblockUser, adminUser, adminUsers, adminUserTwoFactorOff } from '@adena/contract';
import { keepPreviousData, queryOptions, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useAnchoredPage } from '../../../lib/anchored-page';
import { request } from '../../../lib/api-client';
import { withStepUp } from '../../../lib/step-up';

/** The tag of the step-up prompts a user's card asks (the card cancels them when the operator leaves it). */
export const userCardTag = (id: number) => `admin-user:${id}`;

export interface UserSearch {
  q: string;
  role?: 'admin' | 'vip' | 'blocked';
  page: number;
}
export const USERS_PAGE_SIZE = 20;

/** `beforeId`: only users with id <= it (the list as page 1 showed it); page 1 itself is read without. */
export const adminUsersQueryOptions = (s: UserSearch, beforeId?: number) =>
  queryOptions({
    queryKey: ['admin', 'users', 'search', { ...s, before_id: beforeId }],
    queryFn: () =>
      request(adminUsers, { query: { q: s.q.trim() || undefined, role: s.role, before_id: beforeId, page: s.page, per_page: USERS_PAGE_SIZE } }),
    placeholderData: keepPreviousData,
    staleTime: 0,
  });

/** A page of the search; pages 2+ under the newest user page 1 of the same search showed (lib/anchored-page). */
export const useAdminUsers = (s: UserSearch) => useAnchoredPage(s.page, [s.q.trim(), s.role], (beforeId) => adminUsersQueryOptions(s, beforeId));

export const adminUserQueryOptions = (id: number) =>
  queryOptions({ queryKey: ['admin', 'users', 'one', id], queryFn: () => request(adminUser, { params: { id } }), staleTime: 0 });
export const useAdminUser = (id: number) => useQuery(adminUserQueryOptions(id));

export function useUserActions(id: number) {
  const qc = useQueryClient();
  // The user's card and every search page that may list them.
  const done = () => qc.invalidateQueries({ queryKey: ['admin', 'users'] });
  const params = { id };
  return {
    // Making an operator takes the operator's own code (the shared step-up prompt); removing one does not.
    setAdmin: useMutation({
      mutationFn: ({ admin, about }: { admin: boolean; about: string }) =>
        admin
          ? withStepUp((twoFactorCode) => request(adminSetUserAdmin, { params, body: { admin }, twoFactorCode }), { about, tag: userCardTag(id) })
          : request(adminSetUserAdmin, { params, body: { admin } }),
      onSuccess: done,
    }),
    setVip: useMutation({ mutationFn: (vip_until: string | null) => request(adminSetUserVip, { params, body: { vip_until } }), onSuccess: done }),
    block: useMutation({
      mutationFn: ({ reason, revokeKeys }: { reason: string; revokeKeys: boolean }) =>
        request(adminBlockUser, { params, body: revokeKeys ? { reason, revoke_keys: true } : { reason } }),
      onSuccess: done,
    }),
    // Bringing an operator back takes the operator's own code (the shared step-up prompt), as making one does.
    // The server decides from the user's row (one made an operator meanwhile is asked too), so any unblock may ask.
    unblock: useMutation({
      mutationFn: ({ about }: { about: string }) =>
        withStepUp((twoFactorCode) => request(adminUnblockUser, { params, body: {}, twoFactorCode }), { about, tag: userCardTag(id) }),
      onSuccess: done,
    }),
    // The operator confirms with their own code (the shared step-up prompt).
    twoFactorOff: useMutation({
      mutationFn: ({ reason, about }: { reason: string; about: string }) =>
        withStepUp((twoFactorCode) => request(adminUserTwoFactorOff, { params, body: { reason }, twoFactorCode }), { about, tag: userCardTag(id) }),
      onSuccess: done,
    }),
  };
}
