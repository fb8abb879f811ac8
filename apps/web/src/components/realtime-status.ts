import type { ConnectionState } from '../lib/realtime';

export const REALTIME_FAILED_TEXT = 'Не удалось подключиться к серверу обновлений. Баланс и коды обновятся после перезагрузки страницы.';

export const REALTIME_OFFLINE_TEXT = 'Нет подключения к интернету. Баланс и коды обновятся, когда связь вернётся.';

/**
 * What the indicator says in each of SPEC.md's connection states; null: nothing worth showing.
 * `offline`: the browser has no network, so the connection is down whatever the socket still thinks.
 */
export function describeState(state: ConnectionState, offline = false): { tone: 'ok' | 'wait' | 'error'; text: string; short: string } | null {
  if (offline && state !== 'failed' && state !== 'closing' && state !== 'closed') {
    return { tone: 'error', text: REALTIME_OFFLINE_TEXT, short: 'нет связи' };
  }
  switch (state) {
    case 'connected':
      return { tone: 'ok', text: 'Обновления в реальном времени подключены', short: 'обновляется сразу' };
    case 'initialized':
    case 'connecting':
      return { tone: 'wait', text: 'Подключение к серверу обновлений…', short: 'подключение…' };
    case 'disconnected':
      return { tone: 'wait', text: 'Нет связи с сервером обновлений. Переподключаемся…', short: 'переподключение…' };
    case 'suspended':
      return {
        tone: 'error',
        text: 'Нет связи с сервером обновлений больше двух минут. Пробуем снова каждые 30 секунд.',
        short: 'нет связи',
      };
    case 'failed':
      return { tone: 'error', text: REALTIME_FAILED_TEXT, short: 'не удалось подключиться' };
    case 'closing':
    case 'closed':
      return null;
  }
}
