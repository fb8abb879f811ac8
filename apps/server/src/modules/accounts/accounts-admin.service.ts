import { TWO_FACTOR_MESSAGES } from '@adena/contract';
import type { Db } from '../../db/client';
import type { Trx } from '../../db/schema';
import { readSnapshot } from '../../db/snapshot';
import { AppError } from '../../lib/app-error';
import type { Realtime } from '../../plugins/realtime';
import type { AuditRecorder } from '../audit/audit.service';
import type { CodesAdminService } from '../codes/codes-admin.service';
import type { LedgerAdminService } from '../ledger/ledger-admin.service';
import type { RequestsService } from '../requests/requests.service';
import type { Caller, User } from '../sessions/caller';
import type { SessionsService } from '../sessions/sessions.service';
import type { WalletsService } from '../wallets/wallets.service';
import { toAdminUser, toUserAuditView } from './accounts-admin.mapper';
import { createAccountsAdminRepository, type UserChange, type UserSearch } from './accounts-admin.repository';
import { accountsRepository } from './accounts.repository';

const { closeResetFlows } = accountsRepository;

export interface AccountsAdminServiceDeps {
  db: Db['kysely'];
  realtime: Pick<Realtime, 'publish' | 'endUserSessions' | 'leaveOperators'>;
  audit: AuditRecorder;
  /** What the user card shows of other aggregates. */
  wallets: Pick<WalletsService, 'ofUser'>;
  requests: Pick<RequestsService, 'ofUser'>;
  ledger: Pick<LedgerAdminService, 'userEntries'>;
  codes: Pick<CodesAdminService, 'ofUser'>;
  /** A block ends every token of the user in the block's transaction. */
  sessions: Pick<SessionsService, 'endAllSessions'>;
  /** Turns a user's TOTP off and drops their recovery codes, in the operator's transaction. */
  twoFactor: { turnOff(trx: Trx, userId: number): Promise<void> };
  /** Revokes the user's seller API keys, passkeys and notice chat (what a thief could have left behind); how many of each. */
  revokeLeftovers(userId: number, trx: Trx): Promise<{ api_keys_revoked: number; passkeys_removed: number; telegram_chat_unlinked: boolean; webhook_removed: boolean; discord_unlinked: boolean }>;
  /** An operator blocked or demoted lets go of the requests they hold, in the change's transaction; the feed hears after COMMIT. */
  shift: { releaseAllOf(trx: Trx, operatorId: number, byAdminId: number): Promise<number[]>; announceReleased(ids: number[]): void };
  clock?: () => Date;
}

/** How many of a user's newest requests, codes and ledger entries the card shows. */
const CARD_LIMIT = 50;

const userNotFound = () => new AppError('NOT_FOUND', { message: 'Пользователь не найден' });

/**
 * Operators find users and change their admin flag, VIP and block. Each change is one transaction
 * that writes the user and its audit-log row (before and after), so the log never misses a
 * committed change; realtime events happen only after the commit.
 */
// Long: a factory holding 7 small functions; each is short.
export function createAccountsAdminService(deps: AccountsAdminServiceDeps) {
  const repo = createAccountsAdminRepository(deps.db);
  const now = deps.clock ?? (() => new Date());

  /** Admin, VIP and block changes share this shape: lock (the operator too), check, write, audit, then after-commit effects. */
  function changeUser(
    caller: Caller,
    id: number,
    action: string,
    change: (u: User) => UserChange | null,
    /**
     * `writeFirst`: another module's part of the change, run ahead of the user row's write so `after`
     * shows it; what it returns joins the audit row's `after`.
     */
    extra: { reason?: string; endTokens?: boolean; writeFirst?: (trx: Trx) => Promise<Record<string, unknown> | undefined> } = {},
  ) {
    return repo.transaction(async (trx) => {
      const { operator, user: before } = await repo.lockPair(trx, caller.user.id, id);
      // The caller was an admin when the request came in; another operator may have demoted or
      // blocked them since (two admins revoking each other at once would otherwise both win).
      if (!operator?.admin || operator.blocked_at) throw new AppError('FORBIDDEN');
      if (!before) throw userNotFound();
      const set = change(before);
      if (!set) return { user: before, changed: false };
      if (extra.endTokens) {
        // A reset under way (its code perhaps the thief's) ends with the sessions: after an unblock its code
        // would still have given a new password. Closed first, so a code check under way is waited for.
        // Both before `writeFirst`, as a reset ends the sessions before its leftovers: the Discord unlink there
        // takes the key lock on the user's row that every insert into `tokens` waits for (its foreign key), and
        // a socket token or a code check's new-password token, holding its session's or its flow's row, waited
        // for that lock while this waited for the row (one side answered 503; stress review 2026-11-28).
        await closeResetFlows(trx, id);
        await deps.sessions.endAllSessions(id, trx);
      }
      const written = await extra.writeFirst?.(trx);
      const after = await repo.updateUser(trx, id, set);
      await deps.audit.record(trx, {
        adminId: caller.user.id,
        sessionId: caller.sessionId,
        action,
        entityType: 'user',
        entityId: id,
        before: toUserAuditView(before),
        after: { ...toUserAuditView(after), ...written, ...(extra.reason ? { reason: extra.reason } : {}) },
      });
      return { user: after, changed: true };
    });
  }

  return {
    async search(s: UserSearch) {
      // A user blocked, made VIP or signed up between the page's read and its count would leave the pager wrong.
      const { rows, total } = await readSnapshot(deps.db, (q) => repo.searchUsers(s, q));
      const t = now();
      return { data: rows.map((u) => toAdminUser(u, t)), total };
    },

    /** One user's card: the account, wallets, newest requests, codes and ledger entries. */
    async card(id: number) {
      // One moment for the whole card: read apart, a wallet's balance differed from its newest entry's balance_after.
      const card = await readSnapshot(deps.db, async (q) => {
        const user = await repo.findUser(id, q);
        if (!user) return undefined;
        const [wallets, requests, ledger, codes] = await Promise.all([
          deps.wallets.ofUser(id, q),
          deps.requests.ofUser(id, q),
          deps.ledger.userEntries(id, CARD_LIMIT, q),
          deps.codes.ofUser(id, CARD_LIMIT, q),
        ]);
        return { user: toAdminUser(user, now()), wallets, requests, codes, ledger };
      });
      if (!card) throw userNotFound();
      return card;
    },

    async setAdmin(caller: Caller, id: number, value: boolean) {
      if (id === caller.user.id) {
        throw new AppError('CONFLICT', { message: 'Нельзя менять свои собственные права администратора' });
      }
      let released: number[] = [];
      const { user, changed } = await changeUser(caller, id, value ? 'user.admin_grant' : 'user.admin_revoke', (u) => (u.admin === value ? null : { admin: value }), {
        writeFirst: async (trx) => {
          if (!value) released = await deps.shift.releaseAllOf(trx, id, caller.user.id);
          return undefined;
        },
      });
      // A demoted operator stops hearing the operators' feed at once, on every process.
      if (changed && !value) deps.realtime.leaveOperators(id);
      deps.shift.announceReleased(released);
      return toAdminUser(user, now());
    },

    async setVip(caller: Caller, id: number, until: string | null) {
      // VIP is bought with coins (a lower code fee, first in the queue): an operator does not hand it to themselves.
      if (id === caller.user.id) throw new AppError('CONFLICT', { message: 'Свой VIP нельзя менять: его выдаёт другой оператор или покупка за монеты' });
      const date = until === null ? null : new Date(until);
      if (date && date <= now()) {
        throw new AppError('VALIDATION', { errors: { vip_until: ['Дата окончания VIP должна быть в будущем'] } });
      }
      const { user } = await changeUser(caller, id, date ? 'user.vip_grant' : 'user.vip_revoke', (u) =>
        (u.vip_until?.getTime() ?? null) === (date?.getTime() ?? null) ? null : { vip_until: date },
      );
      return toAdminUser(user, now());
    },

    /**
     * Blocks the account and ends every token in the same transaction, so no request after the
     * commit is answered for it (auth also refuses blocked users on every lookup). Open pages
     * learn it at once: every socket of the user gets `session_ended` and is closed, on every process.
     */
    async block(caller: Caller, id: number, reason: string, revokeKeys = false) {
      if (id === caller.user.id) throw new AppError('CONFLICT', { message: 'Нельзя заблокировать самого себя' });
      let released: number[] = [];
      // Already blocked: nothing to do, unless the operator now learned it was stolen (then the leftovers go).
      const block = (u: User) => (u.blocked_at ? (revokeKeys ? {} : null) : { blocked_at: now() });
      const { user, changed } = await changeUser(caller, id, 'user.block', block, {
        reason,
        endTokens: true,
        writeFirst: async (trx) => {
          released = await deps.shift.releaseAllOf(trx, id, caller.user.id);
          // A stolen account: what the thief may have made goes now, and an unblock does not bring it back.
          return revokeKeys ? deps.revokeLeftovers(id, trx) : undefined;
        },
      });
      if (changed) {
        deps.realtime.endUserSessions(id, 'blocked');
      }
      deps.shift.announceReleased(released);
      return toAdminUser(user, now());
    },

    /**
     * Turns TOTP off for a player who lost their authenticator (or found a thief's on the account),
     * after the operator checked who is asking: recovery codes go, every session ends (open pages
     * are signed out), and the next sign-in asks for the password alone. Never for oneself (the
     * profile does that with a code). The route asks for the operator's own code first.
     */
    async turnOffTwoFactor(caller: Caller, id: number, reason: string) {
      if (id === caller.user.id) throw new AppError('CONFLICT', { message: 'Свой вход с кодом отключают в профиле' });
      let released: number[] = [];
      const { user, changed } = await changeUser(
        caller,
        id,
        'user.two_factor_off',
        // The two-factor module owns what turning TOTP off writes; the user row here only gets its updated_at.
        (u) => (u.totp_secret ? {} : null),
        {
          reason,
          endTokens: true,
          // A thief who turned TOTP on with their own authenticator could pass step-up for a seller key and a
          // passkey: both would outlive this rescue (a passkey signs in alone, a key issues codes), so they go too.
          // An operator's sessions end here too: the requests they hold are let go, as on a block.
          writeFirst: async (trx) => {
            released = await deps.shift.releaseAllOf(trx, id, caller.user.id);
            await deps.twoFactor.turnOff(trx, id);
            return deps.revokeLeftovers(id, trx);
          },
        },
      );
      if (!changed) throw new AppError('CONFLICT', { message: 'Вход с кодом у пользователя не включён' });
      deps.realtime.endUserSessions(id, 'revoked');
      deps.shift.announceReleased(released);
      return toAdminUser(user, now());
    },

    /**
     * An operator's account comes back only with the calling operator's own code (`ownCode`, the route's), as
     * making an operator does: the admin flag stays on a blocked operator (one blocked because it was stolen,
     * say), so a stolen operator session alone must not bring one back. The code is checked before the
     * transaction (using it writes the operator's row, which the transaction holds locked), and the row as
     * locked is looked at again: a user made an operator meanwhile is refused with the same 403, and the
     * client asks again with the code.
     */
    async unblock(caller: Caller, id: number, ownCode: () => Promise<void>) {
      const confirmed = Boolean((await repo.findUser(id))?.admin);
      if (confirmed) await ownCode();
      const { user } = await changeUser(caller, id, 'user.unblock', (u) => {
        if (u.admin && !confirmed) throw new AppError('FORBIDDEN', { message: TWO_FACTOR_MESSAGES.required, body: { two_factor_required: true } });
        return u.blocked_at ? { blocked_at: null } : null;
      });
      return toAdminUser(user, now());
    },
  };
}

export type AccountsAdminService = ReturnType<typeof createAccountsAdminService>;
