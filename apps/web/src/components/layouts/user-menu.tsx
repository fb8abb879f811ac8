import AccountCircle from '@mui/icons-material/AccountCircle';
import Button from '@mui/material/Button';
import IconButton from '@mui/material/IconButton';
import { useState } from 'react';
import { Link as RouterLink } from 'wouter';
import { rememberReturnTo } from '../../lib/return-to';
import { useLogout, useUser } from '../../lib/session';
import { deferred } from '../deferred';

const UserMenuPopup = deferred(() => import('./user-menu-popup'));

export function UserMenu() {
  const { user, isPending, readFailed } = useUser();
  const logout = useLogout();
  const [anchor, setAnchor] = useState<HTMLElement | null>(null);
  // Still reading: nothing yet. The read failed with a token held (the page says so): not «Войти», the player is
  // signed in; the menu still offers «Профиль» and «Выйти» (who it is is not known, so no name in it).
  if (isPending) return null;
  if (!user && !readFailed) {
    return (
      <Button component={RouterLink} to="/auth/login_methods/email" variant="contained" size="small" onClick={() => rememberReturnTo()}>
        Войти
      </Button>
    );
  }
  return (
    <>
      <IconButton aria-label="Профиль" aria-haspopup="menu" onClick={(e) => setAnchor(e.currentTarget)}>
        <AccountCircle />
      </IconButton>
      <UserMenuPopup active={Boolean(anchor)} anchor={anchor} user={user} onClose={() => setAnchor(null)} onLogout={() => logout.mutate()} />
    </>
  );
}
