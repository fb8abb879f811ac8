import Button from '@mui/material/Button';
import Stack from '@mui/material/Stack';
import Typography from '@mui/material/Typography';
import { useRef } from 'react';
import { Redirect } from 'wouter';
import { PasskeysSection } from '../../features/passkeys/components/passkeys-section';
import { SecuritySection } from '../../features/sessions/components/security-section';
import { SellerSection } from '../../features/seller/components/seller-section';
import { TwoFactorSection } from '../../features/two-factor/components/two-factor-section';
import { UserReadFailed } from '../../components/user-read-failed';
import { rememberReturnTo } from '../../lib/return-to';
import { useLogout, useUser } from '../../lib/session';

/**
 * The signed-in player's profile: one section per feature (security, sessions, sellers' keys…),
 * each a component of its own feature composed here. Add a section with one line below.
 */
export default function ProfileRoute() {
  const { user, isPending, readFailed } = useUser();
  const logout = useLogout();
  // Whether this page showed a signed-in player (or the failed read of one): signed out after it («Выйти» here, another
  // tab's sign-out), the next sign-in (maybe another person's) goes to the wallet, not back here.
  const shown = useRef(false);
  if (user || readFailed) shown.current = true;
  if (isPending) return null;
  // Signed in, but the user could not be read (the service down a moment, no connection): said, not sent to sign in.
  if (!user && !readFailed) {
    // Opened signed out: signed in, the player comes back here (the sellers' guide's «Создать ключ в профиле» led
    // them), not to the wallet.
    if (!shown.current) rememberReturnTo();
    return <Redirect to="/auth/login_methods/email" replace />;
  }
  return (
    <Stack spacing={3} component="article">
      <Typography variant="h1">Профиль</Typography>
      {user ? (
        <>
          <Typography color="textSecondary">{user.name || 'Игрок'}</Typography>
          {/* sections: one line per feature */}
          <SecuritySection />
          <TwoFactorSection />
          <PasskeysSection />
          <SellerSection />
        </>
      ) : (
        <UserReadFailed />
      )}
      {/* Sign-out here too: inside Telegram the app bar and its menu are hidden, and this page is reached from the footer. */}
      <Button variant="outlined" color="error" sx={{ alignSelf: 'flex-start' }} disabled={logout.isPending} onClick={() => logout.mutate()}>
        Выйти
      </Button>
    </Stack>
  );
}
