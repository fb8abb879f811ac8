import Button from '@mui/material/Button';
import Stack from '@mui/material/Stack';
import Typography from '@mui/material/Typography';
import { Redirect } from 'wouter';
import { PasskeysSection } from '../../features/passkeys/components/passkeys-section';
import { SecuritySection } from '../../features/sessions/components/security-section';
import { SellerSection } from '../../features/seller/components/seller-section';
import { TwoFactorSection } from '../../features/two-factor/components/two-factor-section';
import { useLogout, useUser } from '../../lib/session';

/**
 * The signed-in player's profile: one section per feature (security, sessions, sellers' keys…),
 * each a component of its own feature composed here. Add a section with one line below.
 */
export default function ProfileRoute() {
  const { user, isPending } = useUser();
  const logout = useLogout();
  if (isPending) return null;
  if (!user) return <Redirect to="/auth/login_methods/email" replace />;
  return (
    <Stack spacing={3} component="article">
      <Typography variant="h1">Профиль</Typography>
      <Typography color="textSecondary">{user.name || 'Игрок'}</Typography>
      {/* sections: one line per feature */}
      <SecuritySection />
      <TwoFactorSection />
      <PasskeysSection />
      <SellerSection />
      {/* Sign-out here too: inside Telegram the app bar and its menu are hidden, and this page is reached from the footer. */}
      <Button variant="outlined" color="error" sx={{ alignSelf: 'flex-start' }} disabled={logout.isPending} onClick={() => logout.mutate()}>
        Выйти
      </Button>
    </Stack>
  );
}
