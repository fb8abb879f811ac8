import type { AuditRecorder } from '../audit/audit.service';
import { AppError } from '../../lib/app-error';
import { toNumber } from '../../lib/money';
import { normalizeSert } from '../../lib/sert';
import type { Realtime } from '../../plugins/realtime';
import type { IncidentsService } from '../incidents/incidents.service';
import { post } from '../ledger/ledger.service';
import type { Caller } from '../sessions/caller';
import { noWebhooks, type WebhookOutbox } from '../webhooks/webhooks.service';
import { balanceEvents, leftEvents, type Outgoing, toAdminAttempt, toAdminCode, toAdminLedgerEntry, toAdminUserCode, toCodeEvent } from './codes.mapper';
import { type CodeRow, type CodesDb, codesRepository as repo } from './codes.repository';
import { refundLegs } from './gift-codes';

export interface CodesAdminDeps {
  db: CodesDb;
  realtime: Pick<Realtime, 'publish'>;
  incidents: Pick<IncidentsService, 'adminOfCode'>;
  audit: AuditRecorder;
  webhooks?: WebhookOutbox;
}

/** Operators' side of codes: a code's whole story, and cancel with refund (audited). */
export function createCodesAdminService({ db, realtime, incidents, audit, webhooks = noWebhooks }: CodesAdminDeps) {
  async function codeView(code: CodeRow, reveal: boolean) {
    const people = await repo.people(db, [code.ownerId, ...(code.activatedBy ? [code.activatedBy] : [])]);
    const byId = new Map(people.map((p) => [p.id, p]));
    const server = await repo.gameServer(db, code.gameServerId);
    return toAdminCode(code, {
      serverName: server!.name,
      issuer: byId.get(code.ownerId)!,
      activator: code.activatedBy ? byId.get(code.activatedBy) : undefined,
      reveal,
    });
  }

  return {
    /** The newest codes the user issued, as their card shows them. */
    async ofUser(userId: number, limit: number, q: typeof db = db) {
      return (await repo.newestOfOwner(q, userId, limit)).map(toAdminUserCode);
    },

    async lookup(q: { sert?: string; id?: number }) {
      const sert = q.sert !== undefined ? normalizeSert(q.sert) : null;
      const code = q.id !== undefined ? await repo.codeById(db, q.id) : sert ? await repo.codeBySert(db, sert) : undefined;
      if (!code) throw new AppError('NOT_FOUND', { message: 'Код не найден' });
      const attempts = await repo.attemptsOf(db, code.id);
      return {
        // An operator who typed the sert already knows it; by id it stays masked.
        code: await codeView(code, q.id === undefined),
        attempts: attempts.map(toAdminAttempt),
        incidents: await incidents.adminOfCode(code.id),
        ledger: (await repo.ledgerOf(db, code)).map(toAdminLedgerEntry),
      };
    },

    /** Refunds the price to the issuer's paying wallet, exactly like the issuer's own cancel; audited. */
    async cancel(caller: Caller, id: number, reason: string) {
      const out = await db.transaction().execute(async (trx) => {
        // The operator's row first, before the code and the owner's wallet (audit.hold).
        await audit.hold(trx, caller);
        const code = await repo.cancelAnyCode(trx, id, caller.user.id);
        if (!code) {
          const existing = await repo.codeById(trx, id);
          if (!existing) throw new AppError('NOT_FOUND', { message: 'Код не найден' });
          throw new AppError('CODE_NOT_ACTIVE', {
            message: existing.status === 'activated' ? 'Код уже активирован' : 'Код уже отменён',
            body: { status: existing.status },
          });
        }
        const posted = await post(trx, { kind: 'code_cancel_admin', refType: 'code', refId: code.id, actorUserId: caller.user.id, legs: refundLegs([code]) });
        await audit.record(trx, {
          adminId: caller.user.id,
          sessionId: caller.sessionId,
          action: 'code.cancel',
          entityType: 'code',
          entityId: code.id,
          before: { status: 'active' },
          after: { status: 'cancelled', reason, refunded: code.price.toString(), wallet_id: code.walletId },
        });
        await webhooks.record(trx, code.ownerId, 'code.cancelled', { code: toCodeEvent(code) });
        return { code, wallets: posted.wallets };
      });
      const c = out.code;
      const events: Outgoing[] = [...balanceEvents(c.ownerId, out.wallets), ...leftEvents(c)];
      for (const e of events) realtime.publish(e.userId, e.name as never, e.data as never);
      return { success: await codeView(c, false), summa: toNumber(c.price) };
    },
  };
}

export type CodesAdminService = ReturnType<typeof createCodesAdminService>;
