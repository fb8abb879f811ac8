import type { User } from '@adena/contract/lite';
import ListItemText from '@mui/material/ListItemText';
import Menu from '@mui/material/Menu';
import MenuItem from '@mui/material/MenuItem';
import { useLocation } from 'wouter';

/** The profile menu of the app bar; loaded the first time it opens. `user` null: its read failed (a token held), no name to show. */
export default function UserMenuPopup({ anchor, user, onClose, onLogout }: { anchor: HTMLElement | null; user: User | null; onClose(): void; onLogout(): void }) {
  const [, navigate] = useLocation();
  return (
    <Menu anchorEl={anchor} open={Boolean(anchor)} onClose={onClose}>
      {user && (
        <MenuItem disabled sx={{ opacity: '1 !important' }}>
          <ListItemText primary={user.name || 'Игрок'} secondary={user.email ?? user.phone ?? (user.telegram_linked ? 'Telegram' : undefined)} />
        </MenuItem>
      )}
      <MenuItem
        onClick={() => {
          onClose();
          navigate('/profile');
        }}
      >
        Профиль
      </MenuItem>
      <MenuItem
        onClick={() => {
          onClose();
          onLogout();
        }}
      >
        Выйти
      </MenuItem>
    </Menu>
  );
}
