import { COPYRIGHT_START_YEAR } from '@adena/contract/lite';
import AccountCircleOutlined from '@mui/icons-material/AccountCircleOutlined';
import ForumOutlined from '@mui/icons-material/ForumOutlined';
import HelpOutline from '@mui/icons-material/HelpOutlineOutlined';
import InfoOutlined from '@mui/icons-material/InfoOutlined';
import Box from '@mui/material/Box';
import IconButton from '@mui/material/IconButton';
import Typography from '@mui/material/Typography';
import { Link as RouterLink } from 'wouter';
import { useBrandName } from '../../lib/public-config';
import { Hint } from '../hint';

const LINKS = [
  { to: '/help', title: 'Помощь', icon: <HelpOutline /> },
  { to: '/contacts', title: 'Контакты', icon: <ForumOutlined /> },
  { to: '/about', title: 'О нас', icon: <InfoOutlined /> },
];

/** `profile`: a link to the profile (sessions, sign-out), for the Telegram mini app where the app bar and its menu are hidden. */
export function Footer({ profile = false }: { profile?: boolean }) {
  const brand = useBrandName();
  const links = profile ? [{ to: '/profile', title: 'Профиль', icon: <AccountCircleOutlined /> }, ...LINKS] : LINKS;
  return (
    <Box component="footer" sx={{ py: 2, px: 2, textAlign: 'center', borderTop: 1, borderColor: 'divider' }}>
      {/* A landmark of its own, so a screen reader's list of regions offers these links. */}
      <Box component="nav" aria-label="О сервисе" sx={{ display: 'flex', justifyContent: 'center', gap: 1 }}>
        {links.map((l) => (
          <Hint key={l.to} title={l.title}>
            <IconButton component={RouterLink} to={l.to} aria-label={l.title}>
              {l.icon}
            </IconButton>
          </Hint>
        ))}
      </Box>
      <Typography variant="body2" color="textSecondary" data-testid="copyright">
        © {COPYRIGHT_START_YEAR}–{new Date().getFullYear()} {brand}
      </Typography>
    </Box>
  );
}
