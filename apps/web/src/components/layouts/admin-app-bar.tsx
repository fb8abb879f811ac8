import AdminPanelSettingsOutlined from '@mui/icons-material/AdminPanelSettingsOutlined';
import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
import { Link, useLocation } from 'wouter';
import { useUser } from '../../lib/session';

export const ADMIN_LINKS = [
  { to: '/admin', label: 'Заявки', end: true },
  { to: '/admin/shift', label: 'Смена', end: false },
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
  const [path] = useLocation();
  if (!user?.admin) return null;
  return (
    <Box
      component="nav"
      aria-label="Администрирование"
      data-view="admin-app-bar"
      // On a phone the links wrap into a second row: a row that scrolls sideways hid half of them with no hint.
      sx={{
        display: 'flex',
        flexWrap: { xs: 'wrap', sm: 'nowrap' },
        gap: 0.5,
        alignItems: 'center',
        px: 2,
        py: 0.5,
        overflowX: { sm: 'auto' },
        bgcolor: 'action.hover',
        borderBottom: 1,
        borderColor: 'divider',
      }}
    >
      <AdminPanelSettingsOutlined fontSize="small" sx={{ color: 'text.secondary', mr: 0.5 }} aria-hidden />
      {ADMIN_LINKS.map((l) => (
        <Button
          key={l.to}
          component={Link}
          to={l.to}
          aria-current={(l.end ? path === l.to : path === l.to || path.startsWith(`${l.to}/`)) ? 'page' : undefined}
          size="small"
          color="inherit"
          // No shrinking (a flex row would squeeze a label under its neighbour), and no 64 px minimum width,
          // which gave the short labels wider gaps than the rest.
          sx={{ whiteSpace: 'nowrap', flexShrink: 0, minWidth: 0, px: 1, '&[aria-current="page"]': { color: 'primary.main', fontWeight: 700 } }}
        >
          {l.label}
        </Button>
      ))}
    </Box>
  );
}
