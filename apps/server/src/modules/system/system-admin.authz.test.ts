import { expect, it } from 'vitest';
import { describeAdminOutsiders, KK } from '../../../test/admin-outsiders';

describeAdminOutsiders(
  "The operators' game-server calls",
  ({ serverId }) => [
    ['GET', '/api/admin/gamesservers'],
    [
      'POST',
      '/api/admin/gamesservers',
      {
        name: 'Outsider x1',
        active: true,
        sort_order: 1,
        cashier_nick: 'Kassa',
        limits: { input: { '1': { min: 1, max: KK }, '2': { min: 1, max: 10 } }, output: { '1': { min: 1, max: KK }, '2': { min: 1, max: 10 } } },
        code_fee_bp: 0,
        vip_code_fee_bp: 0,
        min_nominal: 1,
        standard_nominals: [],
        vip_price: 1,
        vip_period_days: 1,
      },
    ],
    ['PUT', `/api/admin/gamesservers/${serverId}`, { code_fee_bp: 0, active: false }],
  ],
  3,
  (ctx) => {
    it('refuses before reading the body: an outsider never learns what an admin call expects', async () => {
      const { t, w } = ctx();
      const anon = await t.app.inject({ method: 'POST', url: '/api/admin/gamesservers', payload: { name: 1 } });
      expect(anon.statusCode).toBe(401);
      expect(anon.json().errors).toBeUndefined();
      const asPlayer = await t.app.inject({ method: 'PUT', url: `/api/admin/gamesservers/${w.serverId}`, headers: w.player.auth, payload: { code_fee_bp: -1 } });
      expect(asPlayer.statusCode).toBe(403);
    });
  },
);
