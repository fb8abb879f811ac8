import type { ApiKey } from '@adena/contract';
import type { ApiKeyRow } from './api-keys.repository';

const iso = (d: Date | string | null) => (d ? new Date(d).toISOString() : null);

export const toApiKey = (k: ApiKeyRow): ApiKey => ({
  id: k.id,
  name: k.name,
  prefix: k.prefix,
  created_at: iso(k.created_at)!,
  last_used_at: iso(k.last_used_at),
});
