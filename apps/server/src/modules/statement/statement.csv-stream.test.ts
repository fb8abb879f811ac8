import { request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Readable } from 'node:stream';
import { parse } from 'csv-parse/sync';
import Fastify from 'fastify';
import { serializerCompiler, validatorCompiler, type ZodTypeProvider } from 'fastify-type-provider-zod';
import { afterAll, afterEach, beforeAll, describe, expect, it, type MockInstance, vi } from 'vitest';
import { createUser, createWallet, firstServerId, fund } from '../../../test/factories';
import { createTestApp, DB_KINDS, type TestApp } from '../../../test/harness';
import { statementRepository } from './statement.repository';
import { statementRoutes } from './statement.routes';
import { createStatementService } from './statement.service';

type Player = Awaited<ReturnType<typeof createUser>>;
/** The repository's own read, kept before any spy wraps it. */
const realCsvPage = statementRepository.csvPage.bind(statementRepository);

const BOM = '\ufeff';
const HEADER = 'Дата (МСК);Сервер;Валюта;Операция;Сумма;Остаток после;Описание';
const moscow = new Intl.DateTimeFormat('ru-RU', {
  timeZone: 'Europe/Moscow',
  day: '2-digit',
  month: '2-digit',
  year: 'numeric',
  hour: '2-digit',
  minute: '2-digit',
  second: '2-digit',
});
// A server name an operator could set: a formula to Excel, with the separator and a quote in it.
const NASTY_NAME = '=HYPERLINK("x");Сервер';

const text = async (body: Readable) => {
  const chunks: Buffer[] = [];
  for await (const c of body) chunks.push(Buffer.from(c));
  return Buffer.concat(chunks).toString('utf8');
};

/** The spy on the repository's CSV read (only it: the setup's own spy on console.error stays). */
let readsSpy: MockInstance<typeof statementRepository.csvPage> | undefined;
const unspy = () => {
  readsSpy?.mockRestore();
  readsSpy = undefined;
};
afterEach(unspy);

describe.each(DB_KINDS)('statement CSV streamed in pages on %s', (kind) => {
  let t: TestApp;
  let nastyServerId: number;

  beforeAll(async () => {
    t = await createTestApp(kind);
    const model = await t.db.kysely.selectFrom('gamesservers').selectAll().where('id', '=', await firstServerId(t.db.kysely)).executeTakeFirstOrThrow();
    nastyServerId = (
      await t.db.kysely
        .insertInto('gamesservers')
        .values({
          name: NASTY_NAME,
          active: false,
          sort_order: 999,
          cashier_nick: model.cashier_nick,
          limits: JSON.stringify(model.limits) as never,
          min_nominal: model.min_nominal,
          vip_price: model.vip_price,
        })
        .returning('id')
        .executeTakeFirstOrThrow()
    ).id;
  });
  afterAll(async () => {
    await t.close();
  });

  /** A statement service of its own, reading `rows` entries at a time, and a count of its reads. */
  function serviceReading(rows: number, user: Player) {
    unspy();
    const reads = vi.spyOn(statementRepository, 'csvPage');
    readsSpy = reads;
    const sessions = {
      issueDownloadToken: async () => {
        throw new Error('not used');
      },
      userOfDownloadToken: async (token: string) => (token === 'good' ? user : null),
    } as unknown as Parameters<typeof createStatementService>[0]['sessions'];
    return { service: createStatementService({ db: t.db.kysely, sessions, csvPageRows: rows }), reads };
  }

  /** A player with `amounts.length` entries on the nasty server (adena, then coins every third), another player's between them. */
  async function playerWith(amounts: number[]) {
    const p = await createUser(t.db.kysely);
    const w = await createWallet(t.db.kysely, p.id, nastyServerId, 'Hero');
    const stranger = await createUser(t.db.kysely);
    const sw = await createWallet(t.db.kysely, stranger.id, nastyServerId, 'Other');
    for (const [i, amount] of amounts.entries()) {
      await fund(t.db.kysely, w, BigInt(amount), i % 3 === 2 ? 2 : 1);
      await fund(t.db.kysely, sw, 1n);
    }
    return { p, w };
  }

  /** The file the player must get, written here cell by cell from the ledger's rows. */
  async function expectedFile(walletId: number) {
    const rows = await t.db.kysely
      .selectFrom('ledger_entries as e')
      .innerJoin('ledger_accounts as a', 'a.id', 'e.account_id')
      .select(['e.id', 'e.created_at', 'e.amount', 'e.balance_after', 'a.currency_type'])
      .where('a.wallet_id', '=', walletId)
      .where('a.kind', '=', 'wallet')
      .orderBy('e.id')
      .execute();
    const lines = rows.map((r) =>
      [
        moscow.format(new Date(r.created_at)).replace(',', ''),
        `"'=HYPERLINK(""x"");Сервер"`,
        Number(r.currency_type) === 1 ? 'Адена' : 'Монеты эйнхасад',
        'Корректировка',
        String(r.amount),
        String(r.balance_after),
        'Корректировка баланса',
      ].join(';'),
    );
    return `${BOM}${[HEADER, ...lines].join('\r\n')}\r\n`;
  }

  it('has no row limit: 7 rows read 2 at a time are the expected file, byte for byte, as one read gives it', async () => {
    const { p, w } = await playerWith([11, 12, 13, 14, 15, 16, 17]);
    const expected = await expectedFile(w.id);
    expect(parse(expected, { bom: true, delimiter: ';', columns: true })).toHaveLength(7);

    const { service, reads } = serviceReading(2, p);
    const file = await service.csv(p, {});
    expect(file.fileName).toBe('statement.csv');
    expect(await text(file.body)).toBe(expected);
    // Pages of 2, 2, 2 and 1 rows: four short reads, each after the last id of the one before.
    expect(reads.mock.calls.map((c) => [c[3], c[4]])).toEqual([
      [null, 2],
      [expect.any(BigInt), 2],
      [expect.any(BigInt), 2],
      [expect.any(BigInt), 2],
    ]);

    // Any page size gives the same bytes: one row at a time, exactly the file's length (one more,
    // empty read), and everything in one read.
    for (const [rows, readsTaken] of [
      [1, 8],
      [7, 2],
      [5_000, 1],
    ] as const) {
      const { service: other, reads: counted } = serviceReading(rows, p);
      expect(await text((await other.csv(p, {})).body)).toBe(expected);
      expect(counted).toHaveBeenCalledTimes(readsTaken);
    }

    // The app's own route (5 000 rows a read): the same file and the same headers as ever.
    const res = await t.app.inject({ method: 'GET', url: '/api/statement.csv', headers: p.auth });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('text/csv; charset=utf-8');
    expect(res.headers['content-disposition']).toBe('attachment; filename="statement.csv"');
    expect(res.headers['cache-control']).toBe('no-store');
    expect(res.rawPayload.toString('utf8')).toBe(expected);
    // A period, paged: the same file again, and its name.
    const moscowDay = (ms: number) => new Date(ms + 3 * 3600_000).toISOString().slice(0, 10);
    const [from, to] = [moscowDay(Date.now() - 86_400_000), moscowDay(Date.now())];
    const period = await serviceReading(3, p).service.csv(p, { from, to });
    expect(period.fileName).toBe(`statement-${from}-${to}.csv`);
    expect(await text(period.body)).toBe(expected);
    // Another server's filter: only the header.
    expect(await text((await serviceReading(2, p).service.csv(p, { gamesserver_id: await firstServerId(t.db.kysely) })).body)).toBe(
      `${BOM}${HEADER}\r\n`,
    );
  });

  it('writes every entry committed before the download once, in order; one committed meanwhile at most once', async () => {
    const { p, w } = await playerWith([1, 2, 3, 4, 5, 6, 7]);
    const { service, reads } = serviceReading(2, p);
    let added = false;
    reads.mockImplementation(async (...args) => {
      // Between the first and the second page, three more entries are committed.
      if (reads.mock.calls.length === 2 && !added) {
        added = true;
        for (const amount of [101, 102, 103]) await fund(t.db.kysely, w, BigInt(amount));
      }
      return realCsvPage(...args);
    });
    const rows = parse(await text((await service.csv(p, {})).body), { bom: true, delimiter: ';', columns: true }) as Record<string, string>[];
    expect(added).toBe(true);
    expect(rows.map((r) => Number(r.Сумма))).toEqual([1, 2, 3, 4, 5, 6, 7, 101, 102, 103]);
  });

  it('stops reading when the client goes away mid-download', async () => {
    const { p } = await playerWith([1, 2, 3, 4, 5, 6, 7]);
    const { service, reads } = serviceReading(2, p);
    // The second page waits until the client has gone.
    let release!: () => void;
    const gate = new Promise<void>((r) => {
      release = r;
    });
    let secondRead: Promise<unknown> | undefined;
    reads.mockImplementation(async (...args) => {
      if (reads.mock.calls.length !== 2) return realCsvPage(...args);
      secondRead = gate.then(() => realCsvPage(...args));
      return (await secondRead) as Awaited<ReturnType<typeof realCsvPage>>;
    });
    let body: Readable | undefined;
    const csv = service.csv.bind(service);
    service.csv = async (...args) => {
      const file = await csv(...args);
      body = file.body;
      return file;
    };

    const app = Fastify().withTypeProvider<ZodTypeProvider>();
    app.setValidatorCompiler(validatorCompiler);
    app.setSerializerCompiler(serializerCompiler);
    await app.register(statementRoutes({ statement: service }));
    await app.listen({ port: 0, host: '127.0.0.1' });
    try {
      const serverSawClose = new Promise<void>((r) => app.server.on('request', (_req, res) => res.on('close', () => r())));
      const firstBytes = await new Promise<string>((resolve, reject) => {
        const req = httpRequest({ host: '127.0.0.1', port: (app.server.address() as AddressInfo).port, path: '/api/statement.csv?token=good' }, (res) => {
          expect(res.statusCode).toBe(200);
          expect(res.headers['content-disposition']).toBe('attachment; filename="statement.csv"');
          let got = '';
          res.on('data', (c: Buffer) => {
            got += c.toString('utf8');
            // The header and the first page's two lines: then the client hangs up.
            if (got.split('\r\n').length > 3) {
              req.destroy();
              resolve(got);
            }
          });
          res.on('error', () => undefined);
        });
        req.on('error', (e) => (req.destroyed ? undefined : reject(e)));
        req.end();
      });
      expect(firstBytes.startsWith(`${BOM}${HEADER}\r\n`)).toBe(true);
      await serverSawClose;
      release();
      // The stream closes once its generator has ended; the read in flight ends, and none follows it.
      const b = body!;
      if (!b.closed) await new Promise<void>((r) => b.once('close', () => r()));
      expect(b.destroyed).toBe(true);
      await secondRead;
      await new Promise((r) => setTimeout(r, 100));
      expect(reads).toHaveBeenCalledTimes(2);
    } finally {
      release();
      await app.close();
    }
  });
});
