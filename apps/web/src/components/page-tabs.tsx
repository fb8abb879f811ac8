import ButtonBase from '@mui/material/ButtonBase';
import { styled } from '@mui/material/styles';
import { type KeyboardEvent, type ReactNode, useRef, useState } from 'react';

/**
 * The home page's tabs: MUI's `<Tabs variant="fullWidth">` with `<Tab>`s, drawn the same (MUI's
 * class names and styles, the theme's MuiTab overrides), without its cost on the first page. MUI's
 * Tabs measures its tabs after the first commit to place the indicator (a forced layout of the
 * whole page) and its tabs register with a roving-focus root in the commit; both set state there,
 * so React re-renders at once and runs every passive effect of the page inside the same long
 * task. With tabs of equal width the indicator's place is known: i / n of the row. Its code and
 * the scroll buttons' leave the first page too (decision record 0028).
 */
const Root = styled('div')({ overflow: 'hidden', minHeight: 48, WebkitOverflowScrolling: 'touch', display: 'flex' });
const Scroller = styled('div')({
  position: 'relative',
  display: 'inline-block',
  flex: '1 1 auto',
  whiteSpace: 'nowrap',
  overflow: 'hidden',
  width: '100%',
});
const List = styled('div')({ display: 'flex' });
const Indicator = styled('span')(({ theme }) => ({
  position: 'absolute',
  height: 2,
  bottom: 0,
  transition: theme.transitions.create('all'),
  backgroundColor: theme.palette.primary.main,
}));
// MUI's Tab with textColor="primary" and fullWidth, and the theme's override (apps/web/src/app/theme.ts).
const Tab = styled(ButtonBase)(({ theme }) => ({
  ...theme.typography.button,
  maxWidth: 'none',
  minWidth: 90,
  position: 'relative',
  minHeight: 48,
  flexShrink: 1,
  flexGrow: 1,
  flexBasis: 0,
  padding: '12px 16px',
  overflow: 'hidden',
  whiteSpace: 'normal',
  textAlign: 'center',
  lineHeight: 1.25,
  flexDirection: 'column',
  color: theme.palette.text.secondary,
  '&.Mui-selected': { color: theme.palette.primary.main },
  textTransform: 'none',
  fontWeight: 600,
}));

export interface PageTab<V extends string> {
  value: V;
  label: ReactNode;
  'aria-label'?: string;
}

/** The ids that tie a tab to its panel: the panel is `<TabPanel>` below, with the same `idPrefix`. */
const tabId = (prefix: string, value: string) => `${prefix}-tab-${value}`;
const panelId = (prefix: string, value: string) => `${prefix}-panel-${value}`;

/** The selected tab's content, named by its tab for assistive technology (only the selected one is rendered). */
export function TabPanel({ idPrefix, value, children }: { idPrefix: string; value: string; children: ReactNode }) {
  return (
    <div role="tabpanel" id={panelId(idPrefix, value)} aria-labelledby={tabId(idPrefix, value)}>
      {children}
    </div>
  );
}

export function PageTabs<V extends string>({
  tabs,
  value,
  onChange,
  idPrefix,
}: {
  tabs: ReadonlyArray<PageTab<V>>;
  value: V;
  onChange(value: V): void;
  idPrefix: string;
}) {
  const list = useRef<HTMLDivElement>(null);
  // While focus is inside the row, the focused tab is the one Tab reaches (as MUI's roving focus).
  const [focused, setFocused] = useState<V | null>(null);
  const stop = focused ?? value;
  const index = Math.max(
    0,
    tabs.findIndex((t) => t.value === value),
  );

  const onKeyDown = (e: KeyboardEvent<HTMLDivElement>) => {
    if (e.altKey || e.shiftKey || e.ctrlKey || e.metaKey) return;
    const buttons = [...(list.current?.querySelectorAll<HTMLElement>('[role="tab"]') ?? [])];
    const current = buttons.indexOf(document.activeElement as HTMLElement);
    if (current < 0) return;
    const n = buttons.length;
    const next = { ArrowLeft: (current - 1 + n) % n, ArrowRight: (current + 1) % n, Home: 0, End: n - 1 }[e.key];
    if (next === undefined) return;
    e.preventDefault();
    buttons[next]?.focus();
  };

  return (
    <Root className="MuiTabs-root">
      <Scroller className="MuiTabs-scroller MuiTabs-fixed">
        <List
          ref={list}
          role="tablist"
          className="MuiTabs-list"
          onKeyDown={onKeyDown}
          onBlur={(e) => {
            if (!e.currentTarget.contains(e.relatedTarget)) setFocused(null);
          }}
        >
          {tabs.map((t) => {
            const selected = t.value === value;
            return (
              <Tab
                key={t.value}
                focusRipple
                role="tab"
                id={tabId(idPrefix, t.value)}
                // Only the selected tab's panel exists in the page: the others control nothing yet.
                aria-controls={selected ? panelId(idPrefix, t.value) : undefined}
                aria-selected={selected}
                aria-label={t['aria-label']}
                tabIndex={t.value === stop ? 0 : -1}
                className={`MuiTab-root MuiTab-textColorPrimary MuiTab-fullWidth${selected ? ' Mui-selected' : ''}`}
                onFocus={() => setFocused(t.value)}
                onClick={() => {
                  if (!selected) onChange(t.value);
                }}
                sx={{ minWidth: 0, px: 1 }}
              >
                {t.label}
              </Tab>
            );
          })}
        </List>
        <Indicator className="MuiTabs-indicator" style={{ left: `${(index * 100) / tabs.length}%`, width: `${100 / tabs.length}%` }} />
      </Scroller>
    </Root>
  );
}
