import type { Session } from '@adena/contract';

export interface SessionRow {
  id: number;
  method: string | null;
  created_at: Date;
  last_seen_at: Date;
  ip: string | null;
  user_agent: string | null;
}

/** A session row as the profile's list shows it; `current` is the session of the call. */
export const toSession = (row: SessionRow, currentSessionId: number): Session => ({
  id: row.id,
  current: row.id === currentSessionId,
  // Sessions signed in before sign-in methods were recorded (0015_sessions.sql).
  method: row.method ?? 'unknown',
  created_at: new Date(row.created_at).toISOString(),
  last_seen_at: new Date(row.last_seen_at).toISOString(),
  ip: row.ip,
  user_agent: row.user_agent,
});
