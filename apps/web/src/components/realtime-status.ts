import type { ConnectionState } from '../lib/realtime';

export const REALTIME_FAILED_TEXT = 'Не удалось подключиться к серверу обновлений. Баланс и коды обновятся после перезагрузки страницы.';

/** What the indicator says in each of SPEC.md's connection states; null: nothing worth showing. */
export function describeState(state: ConnectionState): { tone: 'ok' | 'wait' | 'error'; text: string; short: string } | null {
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
