import type { ConnectionState } from '../../lib/realtime';

export const REALTIME_FAILED_TEXT = 'Не удалось подключиться к серверу обновлений. Баланс и коды обновятся после перезагрузки страницы.';

/** What the indicator says in each of SPEC.md's connection states; null: nothing worth showing. */
export function describeState(state: ConnectionState): { tone: 'ok' | 'wait' | 'error'; text: string } | null {
  switch (state) {
    case 'connected':
      return { tone: 'ok', text: 'Обновления в реальном времени подключены' };
    case 'initialized':
    case 'connecting':
      return { tone: 'wait', text: 'Подключение к серверу обновлений…' };
    case 'disconnected':
      return { tone: 'wait', text: 'Нет связи с сервером обновлений. Переподключаемся…' };
    case 'suspended':
      return { tone: 'error', text: 'Нет связи с сервером обновлений больше двух минут. Пробуем снова каждые 30 секунд.' };
    case 'failed':
      return { tone: 'error', text: REALTIME_FAILED_TEXT };
    case 'closing':
    case 'closed':
      return null;
  }
}
