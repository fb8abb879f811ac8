import Button from '@mui/material/Button';
import Stack from '@mui/material/Stack';
import Typography from '@mui/material/Typography';
import { Link as RouterLink } from 'wouter';

export function NotFoundRoute() {
  return (
    <Stack spacing={2} sx={{ alignItems: 'flex-start' }}>
      <Typography variant="h1">Страница не найдена</Typography>
      <Typography color="textSecondary">Такой страницы нет. Возможно, ссылка устарела или в адресе опечатка.</Typography>
      <Button variant="contained" component={RouterLink} to="/">
        На главную
      </Button>
    </Stack>
  );
}
