import Stack from '@mui/material/Stack';
import Typography from '@mui/material/Typography';
import { Redirect } from 'wouter';
import { PasskeysSection } from '../../features/passkeys/components/passkeys-section';
import { TwoFactorSection } from '../../features/two-factor/components/two-factor-section';
import { useUser } from '../../lib/session';

/**
 * The signed-in player's profile: one section per feature (security, sessions, sellers' keys…),
 * each a component of its own feature composed here. Add a section with one line below.
 */
export default function ProfileRoute() {
  const { user, isPending } = useUser();
  if (isPending) return null;
  if (!user) return <Redirect to="/auth/login_methods/email" replace />;
  return (
    <Stack spacing={3} component="article">
      <Typography variant="h1">Профиль</Typography>
      <Typography color="text.secondary">{user.name || 'Игрок'}</Typography>
      {/* sections: one line per feature */}
      <TwoFactorSection />
      <PasskeysSection />
    </Stack>
  );
}
