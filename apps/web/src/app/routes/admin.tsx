import Alert from '@mui/material/Alert';
import Box from '@mui/material/Box';
import CircularProgress from '@mui/material/CircularProgress';
import { Route, Routes } from 'react-router';
import { RequestsQueue } from '../../features/admin-requests/components/requests-queue';
import { useUser } from '../../features/auth/api/session';
import { useGamesservers } from '../../features/servers/api/get-gamesservers';
import { NotFoundRoute } from './not-found';

/** SPEC.md section 2: the admin area. Loaded on demand, so players never download it. */
export default function AdminRoutes() {
  const { user, isPending } = useUser();
  const { data: servers = [] } = useGamesservers();
  if (isPending) {
    return (
      <Box sx={{ display: 'flex', justifyContent: 'center', py: 6 }}>
        <CircularProgress aria-label="Загрузка…" />
      </Box>
    );
  }
  if (!user?.admin) return <Alert severity="warning">Этот раздел доступен только операторам сервиса.</Alert>;
  return (
    <Box data-view="admin-area">
      <Routes>
        <Route index element={<RequestsQueue servers={servers} />} />
        <Route path="*" element={<NotFoundRoute />} />
      </Routes>
    </Box>
  );
}
