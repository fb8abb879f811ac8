import { cloneElement, type FocusEvent, type MouseEvent, type ReactElement, type TouchEvent, useEffect, useRef, useState } from 'react';
import { deferred } from './deferred';

const HintPopup = deferred(() => import('./hint-popup'));

type TriggerProps = {
  onMouseOver?(e: MouseEvent<HTMLElement>): void;
  onMouseLeave?(e: MouseEvent<HTMLElement>): void;
  onFocus?(e: FocusEvent<HTMLElement>): void;
  onBlur?(e: FocusEvent<HTMLElement>): void;
  onTouchStart?(e: TouchEvent<HTMLElement>): void;
  onTouchEnd?(e: TouchEvent<HTMLElement>): void;
};

// MUI Tooltip's timings: 100 ms to open on hover, a 700 ms press on touch, 1.5 s shown after it.
const ENTER_MS = 100;
const TOUCH_ENTER_MS = 700;
const TOUCH_LEAVE_MS = 1500;

/**
 * A tooltip whose code (MUI's Tooltip, Popper and Popper.js, ~12 KB gzip) is fetched the first
 * time it opens, so icon buttons on the first page carry none of it. It opens like MUI's: on
 * hover, on keyboard focus, on a long press; Escape closes it. The child keeps its own
 * aria-label (the tooltip only repeats it visually), and the child element is never replaced,
 * so focus and hover stay where they are when the code arrives.
 */
export function Hint({ title, children }: { title: string; children: ReactElement<TriggerProps> }) {
  const [anchor, setAnchor] = useState<HTMLElement | null>(null);
  const [open, setOpen] = useState(false);
  const timer = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);
  // After a touch the browser also sends mouse events; like MUI, ignore them for a moment.
  const touched = useRef(false);

  const later = (ms: number, fn: () => void) => {
    clearTimeout(timer.current);
    timer.current = setTimeout(fn, ms);
  };
  const show = (el: HTMLElement, ms: number) =>
    later(ms, () => {
      setAnchor(el);
      setOpen(true);
    });
  const hide = (ms = 0) => later(ms, () => setOpen(false));

  useEffect(() => () => clearTimeout(timer.current), []);
  useEffect(() => {
    if (!open) return;
    const onKey = (e: KeyboardEvent) => {
      if (e.key === 'Escape') setOpen(false);
    };
    document.addEventListener('keydown', onKey);
    return () => document.removeEventListener('keydown', onKey);
  }, [open]);

  const own = children.props;
  const trigger = cloneElement(children, {
    onMouseOver(e) {
      own.onMouseOver?.(e);
      if (!touched.current) show(e.currentTarget, ENTER_MS);
    },
    onMouseLeave(e) {
      own.onMouseLeave?.(e);
      hide();
    },
    onFocus(e) {
      own.onFocus?.(e);
      if (e.currentTarget.matches(':focus-visible')) show(e.currentTarget, 0);
    },
    onBlur(e) {
      own.onBlur?.(e);
      hide();
    },
    onTouchStart(e) {
      own.onTouchStart?.(e);
      touched.current = true;
      show(e.currentTarget, TOUCH_ENTER_MS);
    },
    onTouchEnd(e) {
      own.onTouchEnd?.(e);
      hide(TOUCH_LEAVE_MS);
      setTimeout(() => {
        touched.current = false;
      }, TOUCH_LEAVE_MS);
    },
  });
  return (
    <>
      {trigger}
      <HintPopup active={open} anchor={anchor} title={title} open={open} />
    </>
  );
}
