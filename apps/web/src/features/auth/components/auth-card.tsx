import Alert from '@mui/material/Alert';
import Paper from '@mui/material/Paper';
import Stack from '@mui/material/Stack';
import Typography from '@mui/material/Typography';
import type { ReactNode } from 'react';

export function AuthCard(props: { title: string; error?: string | null; children: ReactNode; footer?: ReactNode }) {
  return (
    <Paper variant="outlined" sx={{ p: { xs: 2.5, sm: 4 }, maxWidth: 460, mx: 'auto' }}>
      <Stack spacing={2.5}>
        <Typography variant="h1" component="h1">
          {props.title}
        </Typography>
        {props.error && (
          <Alert severity="error" role="alert">
            {props.error}
          </Alert>
        )}
        {props.children}
        {props.footer}
      </Stack>
    </Paper>
  );
}
