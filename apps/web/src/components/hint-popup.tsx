import Tooltip from '@mui/material/Tooltip';

/**
 * The visible part of a Hint: MUI's own Tooltip (look, placement, transition), anchored to the
 * Hint's trigger and opened by it. MUI's Tooltip needs a child to wrap; the trigger is already
 * on the page, so it wraps an empty hidden span and its popper points at the trigger instead.
 */
export default function HintPopup({ anchor, title, open }: { anchor: HTMLElement | null; title: string; open: boolean }) {
  return (
    <Tooltip title={title} open={open && anchor !== null} disableHoverListener disableFocusListener disableTouchListener slotProps={{ popper: { anchorEl: anchor } }}>
      <span hidden aria-hidden />
    </Tooltip>
  );
}
