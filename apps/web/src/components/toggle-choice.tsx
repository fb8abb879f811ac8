import Box from '@mui/material/Box';
import ToggleButton from '@mui/material/ToggleButton';
import type { ReactNode } from 'react';

/**
 * Joined toggle buttons with one pressed: the look of MUI's exclusive, horizontal
 * ToggleButtonGroup without its roving-focus registration, whose effects re-render the group
 * inside the first screen's commit on a slow phone (decision record 0028). Each button is a tab
 * stop and says whether it is the chosen one (aria-pressed).
 */
export function ToggleChoice<T extends string | number>({
  value,
  options,
  onChange,
  label,
}: {
  value: T;
  options: ReadonlyArray<{ value: T; label: ReactNode }>;
  onChange: (value: T) => void;
  label: string;
}) {
  const last = options.length - 1;
  return (
    <Box role="group" aria-label={label} sx={{ display: 'inline-flex', borderRadius: 1 }}>
      {options.map((o, i) => (
        <ToggleButton
          key={o.value}
          value={o.value}
          size="small"
          selected={o.value === value}
          onChange={() => o.value !== value && onChange(o.value)}
          sx={{
            ...(i < last && { borderTopRightRadius: 0, borderBottomRightRadius: 0 }),
            ...(i > 0 && { ml: '-1px', borderLeft: '1px solid transparent', borderTopLeftRadius: 0, borderBottomLeftRadius: 0 }),
            '&.Mui-focusVisible': { zIndex: 1 },
          }}
        >
          {o.label}
        </ToggleButton>
      ))}
    </Box>
  );
}
