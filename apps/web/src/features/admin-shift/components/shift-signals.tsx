import FormControlLabel from '@mui/material/FormControlLabel';
import Switch from '@mui/material/Switch';
import { useEffect, useRef, useState } from 'react';
import { useLocalState } from '../../../lib/local-state';
import { usePendingCount } from '../api/shift';

const KEY = 'admin.signals';

/** A short two-tone chime made on the spot: no sound file to download or cache. */
function chime() {
  try {
    const ctx = new AudioContext();
    for (const [i, f] of [880, 1320].entries()) {
      const o = ctx.createOscillator();
      const g = ctx.createGain();
      o.frequency.value = f;
      g.gain.setValueAtTime(0.15, ctx.currentTime + i * 0.15);
      g.gain.exponentialRampToValueAtTime(0.001, ctx.currentTime + i * 0.15 + 0.3);
      o.connect(g).connect(ctx.destination);
      o.start(ctx.currentTime + i * 0.15);
      o.stop(ctx.currentTime + i * 0.15 + 0.3);
    }
    setTimeout(() => void ctx.close(), 1000);
  } catch {
    // No audio (autoplay policy before any click, or none at all): the title still counts.
  }
}

/**
 * The admin area's signals for an operator away from the screen: a chime for each new request
 * and the number of pending requests in the tab's title. Switchable, remembered in this browser.
 * `created` grows by one with each `request_created` the operators' channel brings, and each such event chimes.
 * A read of the pending count (the minute's safety read while live, every 5 s while the channel reconnects) chimes
 * too when the count rose by more than the events since the previous read explain: those requests came without
 * their event. A request that both an event and a read bring chimes once; a decision in the same interval can hide
 * a lost event's request from the count (no chime then, the counter still right).
 */
export function ShiftSignals({ created, live }: { created: number; live: boolean }) {
  const [on, setOn] = useLocalState(
    KEY,
    (raw) => raw !== 'off',
    (v) => (v ? null : 'off'),
  );
  const { data: pending, dataUpdatedAt } = usePendingCount(live);
  const seen = useRef(created);
  /** The previous read's count and how many events had come by then. */
  const lastRead = useRef<{ count: number; created: number } | null>(null);
  // A count cached before this screen opened (the operator left the admin area and came back) is no baseline: the
  // requests that came meanwhile are waiting ones, counted in the title, not chimed. The first read since then is.
  const [openedAt] = useState(Date.now);

  useEffect(() => {
    if (created > seen.current && on) chime();
    seen.current = created;
  }, [created, on]);

  const fresh = dataUpdatedAt >= openedAt;
  useEffect(() => {
    if (pending === undefined || !fresh) return;
    const last = lastRead.current;
    if (last && pending - last.count > seen.current - last.created && on) chime();
    lastRead.current = { count: pending, created: seen.current };
  }, [pending, fresh, on]);

  useEffect(() => {
    const base = document.title.replace(/^\(\d+\) /, '');
    document.title = on && pending ? `(${pending}) ${base}` : base;
    return () => {
      document.title = document.title.replace(/^\(\d+\) /, '');
    };
  }, [on, pending]);

  // ml 0: FormControlLabel's own negative margin would put the switch left of the page's edge.
  return (
    <FormControlLabel
      control={<Switch size="small" checked={on} onChange={(e) => setOn(e.target.checked)} />}
      label={live ? 'Звук и счётчик во вкладке · очередь в реальном времени' : 'Звук и счётчик во вкладке · связь восстанавливается'}
      slotProps={{ typography: { variant: 'body2', color: 'text.secondary' } }}
      sx={{ ml: 0 }}
      data-testid="shift-signals"
    />
  );
}
