import type { statementCsv, statementDownloadToken } from '@adena/contract';
import { useMutation } from '@tanstack/react-query';
import { request } from '../../../lib/api-client';
import { loadTelegram } from '../../../lib/telegram';
import { ref } from './ref';

const tokenCall = ref<typeof statementDownloadToken>('POST', '/api/statement/download_token');
const csvCall = ref<typeof statementCsv>('GET', '/api/statement.csv');

export interface CsvPeriod {
  gameServerId: number | null;
  currency?: 1 | 2 | null;
  from?: string;
  to?: string;
}

/**
 * Downloads the statement as CSV through a link with a one-time token (a link cannot carry the
 * session's header): in Telegram by its downloadFile when the client has it, else by opening the
 * link; in a browser by a download link.
 */
async function download(p: CsvPeriod) {
  const { token } = await request(tokenCall, { body: {} });
  const qs = new URLSearchParams({ token });
  if (p.gameServerId !== null) qs.set('gamesserver_id', String(p.gameServerId));
  if (p.currency) qs.set('currency_type', String(p.currency));
  if (p.from) qs.set('from', p.from);
  if (p.to) qs.set('to', p.to);
  const url = new URL(`${csvCall.path}?${qs}`, window.location.origin).toString();
  const fileName = `${['statement', p.from, p.to].filter(Boolean).join('-')}.csv`;
  const telegram = await loadTelegram();
  if (telegram) {
    if (!telegram.downloadFile(url, fileName)) window.open(url, '_blank');
    return;
  }
  const a = document.createElement('a');
  a.href = url;
  a.download = fileName;
  document.body.append(a);
  a.click();
  a.remove();
}

export const useDownloadStatement = () => useMutation({ mutationFn: download });
