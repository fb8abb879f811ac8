import Link from '@mui/material/Link';
import Paper from '@mui/material/Paper';
import Stack from '@mui/material/Stack';
import Typography from '@mui/material/Typography';
import { Link as RouterLink } from 'wouter';
import { ApiKeysSection } from './api-keys-section';
import { WebhookSection } from './webhook-section';

/** The profile's «Для продавцов» section: keys and the webhook. */
export function SellerSection() {
  return (
    <Paper variant="outlined" component="section" aria-labelledby="sellers-title" sx={{ p: { xs: 2, sm: 3 } }} data-view="seller-section">
      <Stack spacing={3}>
        <Stack spacing={0.5}>
          <Typography variant="h2" id="sellers-title" sx={{ fontSize: 22 }}>
            Для продавцов
          </Typography>
          <Typography color="textSecondary" variant="body2">
            Выдавайте коды покупателям автоматически.{' '}
            <Link component={RouterLink} href="/sellers">
              Как это работает и примеры кода
            </Link>
          </Typography>
        </Stack>
        <ApiKeysSection />
        <WebhookSection />
      </Stack>
    </Paper>
  );
}
