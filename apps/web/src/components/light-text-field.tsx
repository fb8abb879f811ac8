import FormControl from '@mui/material/FormControl';
import FormHelperText from '@mui/material/FormHelperText';
import InputLabel from '@mui/material/InputLabel';
import OutlinedInput from '@mui/material/OutlinedInput';
import type { SxProps, Theme } from '@mui/material/styles';
import { useId } from 'react';

/**
 * An outlined text field for the first page. MUI's TextField imports its Select (and with it
 * Menu, Popover and Modal) even when it never selects; this is the same look without them.
 */
export function LightTextField(props: {
  label: string;
  value: string;
  onChange(value: string): void;
  error?: boolean;
  helperText?: string;
  size?: 'small' | 'medium';
  autoComplete?: string;
  autoFocus?: boolean;
  sx?: SxProps<Theme>;
}) {
  const id = useId();
  return (
    <FormControl variant="outlined" size={props.size} error={props.error} sx={props.sx}>
      <InputLabel htmlFor={id}>{props.label}</InputLabel>
      <OutlinedInput
        id={id}
        label={props.label}
        value={props.value}
        onChange={(e) => props.onChange(e.target.value)}
        autoComplete={props.autoComplete}
        autoFocus={props.autoFocus}
        aria-describedby={props.helperText ? `${id}-help` : undefined}
      />
      {props.helperText && <FormHelperText id={`${id}-help`}>{props.helperText}</FormHelperText>}
    </FormControl>
  );
}
