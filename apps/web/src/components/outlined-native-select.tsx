import ArrowDropDown from '@mui/icons-material/ArrowDropDown';
import Box from '@mui/material/Box';
import type { ChangeEvent, ReactNode } from 'react';

/**
 * A native select drawn like MUI's outlined field with its label in the notch (the same
 * fieldset-and-legend MUI uses). MUI's NativeSelect needs FormControl, InputLabel, OutlinedInput
 * and InputBase (~4 KB gzip on the first page); this is the phone's own picker with the same look.
 */
export function OutlinedNativeSelect({
  id,
  label,
  value,
  onChange,
  children,
  'data-testid': testId,
}: {
  id: string;
  label: string;
  value: string;
  onChange(e: ChangeEvent<HTMLSelectElement>): void;
  children: ReactNode;
  'data-testid'?: string;
}) {
  return (
    <Box
      data-testid={testId}
      sx={(theme) => ({
        position: 'relative',
        width: '100%',
        borderRadius: `${theme.shape.borderRadius}px`,
        ...theme.typography.body1,
        lineHeight: '1.4375em',
        '& > label': {
          position: 'absolute',
          left: 0,
          top: 0,
          zIndex: 1,
          maxWidth: 'calc(133% - 32px)',
          overflow: 'hidden',
          textOverflow: 'ellipsis',
          whiteSpace: 'nowrap',
          pointerEvents: 'none',
          color: 'text.secondary',
          transformOrigin: 'top left',
          transform: 'translate(14px, -9px) scale(0.75)',
          transition: theme.transitions.create('color', { duration: theme.transitions.duration.shorter, easing: theme.transitions.easing.easeOut }),
        },
        '&:focus-within > label': { color: 'primary.main' },
        '& > select': {
          display: 'block',
          boxSizing: 'border-box',
          width: '100%',
          height: 'calc(1.4375em + 33px)',
          m: 0,
          p: '16.5px 32px 16.5px 14px',
          border: 0,
          borderRadius: 'inherit',
          outline: 0,
          background: 'none',
          font: 'inherit',
          color: 'text.primary',
          cursor: 'pointer',
          appearance: 'none',
          '& option': { backgroundColor: 'background.paper' },
        },
        '& > svg': { position: 'absolute', right: 7, top: 'calc(50% - 0.5em)', pointerEvents: 'none', color: 'action.active' },
        '& > fieldset': {
          position: 'absolute',
          inset: '-5px 0 0',
          m: 0,
          p: '0 8px',
          textAlign: 'left',
          pointerEvents: 'none',
          borderRadius: 'inherit',
          border: '1px solid',
          borderColor: theme.palette.mode === 'light' ? 'rgba(0, 0, 0, 0.23)' : 'rgba(255, 255, 255, 0.23)',
          overflow: 'hidden',
          minWidth: '0%',
        },
        '@media (hover: hover)': { '&:hover > fieldset': { borderColor: 'text.primary' } },
        '& > select:focus ~ fieldset': { borderColor: 'primary.main', borderWidth: 2 },
        '& legend': {
          float: 'unset',
          width: 'auto',
          maxWidth: '100%',
          overflow: 'hidden',
          display: 'block',
          p: 0,
          height: 11,
          fontSize: '0.75em',
          visibility: 'hidden',
          whiteSpace: 'nowrap',
          '& > span': { px: '5px', display: 'inline-block', opacity: 0, visibility: 'visible' },
        },
      })}
    >
      <label htmlFor={id}>{label}</label>
      <select id={id} value={value} onChange={onChange}>
        {children}
      </select>
      <ArrowDropDown />
      <fieldset aria-hidden>
        <legend>
          <span>{label}</span>
        </legend>
      </fieldset>
    </Box>
  );
}
