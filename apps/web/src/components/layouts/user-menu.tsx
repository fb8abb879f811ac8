import AccountCircle from '@mui/icons-material/AccountCircle';
import Button from '@mui/material/Button';
import IconButton from '@mui/material/IconButton';
import ListItemText from '@mui/material/ListItemText';
import Menu from '@mui/material/Menu';
import MenuItem from '@mui/material/MenuItem';
import { useState } from 'react';
import { Link as RouterLink } from 'react-router';
import { useLogout, useUser } from '../../features/auth/api/session';

export function UserMenu() {
  const { user, isPending } = useUser();
  const logout = useLogout();
  const [anchor, setAnchor] = useState<HTMLElement | null>(null);
  if (isPending) return null;
  if (!user) {
    return (
      <Button component={RouterLink} to="/auth/login_methods/email" variant="contained" size="small">
        Войти
      </Button>
    );
  }
  return (
    <>
      <IconButton aria-label="Профиль" aria-haspopup="menu" onClick={(e) => setAnchor(e.currentTarget)}>
        <AccountCircle />
      </IconButton>
      <Menu anchorEl={anchor} open={Boolean(anchor)} onClose={() => setAnchor(null)}>
        <MenuItem disabled sx={{ opacity: '1 !important' }}>
          <ListItemText primary={user.name || 'Игрок'} secondary={user.email ?? user.phone ?? (user.telegram_linked ? 'Telegram' : undefined)} />
        </MenuItem>
        <MenuItem
          onClick={() => {
            setAnchor(null);
            logout.mutate();
          }}
        >
          Выйти
        </MenuItem>
      </Menu>
    </>
  );
}
