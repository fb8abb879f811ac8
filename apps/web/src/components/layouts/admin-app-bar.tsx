import AdminPanelSettingsOutlined from '@mui/icons-material/AdminPanelSettingsOutlined';
import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
import { NavLink } from 'react-router';
import { useUser } from '../../features/auth/api/session';

export const ADMIN_LINKS = [
  { to: '/admin', label: 'Заявки', end: true },
  { to: '/admin/servers', label: 'Серверы', end: false },
  { to: '/admin/users', label: 'Пользователи', end: false },
  { to: '/admin/codes', label: 'Коды', end: false },
  { to: '/admin/incidents', label: 'Инциденты', end: false },
  { to: '/admin/ledger', label: 'Учёт', end: false },
  { to: '/admin/audit', label: 'Журнал действий', end: false },
];

/** SPEC.md section 2: the admin app bar, shown to admins only. */
export function AdminAppBar() {
  const { user } = useUser();
  if (!user?.admin) return null;
  return (
    <Box
      component="nav"
      aria-label="Администрирование"
      data-view="admin-app-bar"
      sx={{ display: 'flex', gap: 0.5, alignItems: 'center', px: 2, py: 0.5, overflowX: 'auto', bgcolor: 'action.hover', borderBottom: 1, borderColor: 'divider' }}
    >
      <AdminPanelSettingsOutlined fontSize="small" sx={{ color: 'text.secondary', mr: 0.5 }} aria-hidden />
      {ADMIN_LINKS.map((l) => (
        <Button
          key={l.to}
          component={NavLink}
          to={l.to}
          end={l.end}
          size="small"
          color="inherit"
          sx={{ whiteSpace: 'nowrap', '&.active': { color: 'primary.main', fontWeight: 700 } }}
        >
          {l.label}
        </Button>
      ))}
    </Box>
  );
}
