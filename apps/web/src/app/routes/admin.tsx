import Alert from '@mui/material/Alert';
import Box from '@mui/material/Box';
import CircularProgress from '@mui/material/CircularProgress';
import Stack from '@mui/material/Stack';
import { useQueryClient } from '@tanstack/react-query';
import type { ReactNode } from 'react';
import { Route, Routes, useParams } from 'react-router';
import { AdminAuditLog } from '../../features/admin-audit/components/admin-audit-log';
import { AdminCodes } from '../../features/admin-codes/components/admin-codes';
import { AdminDashboard } from '../../features/admin-dashboard/components/admin-dashboard';
import { AdminIncidents } from '../../features/admin-incidents/components/admin-incidents';
import { AccountEntries } from '../../features/admin-ledger/components/account-entries';
import { AdminLedger } from '../../features/admin-ledger/components/admin-ledger';
import { RequestsQueue } from '../../features/admin-requests/components/requests-queue';
import { AdminServers } from '../../features/admin-servers/components/admin-servers';
import { AdminUsers } from '../../features/admin-users/components/admin-users';
import { UserDetails } from '../../features/admin-users/components/user-details';
import { useUser } from '../../features/auth/api/session';
import { gamesserversQueryOptions, useGamesservers } from '../../features/servers/api/get-gamesservers';
import { NotFoundRoute } from './not-found';

const ADMIN_WIDTH = 'min(1240px, calc(100vw - 64px))';

/** A numeric :id of the path, or the 404 page. */
function WithId({ render }: { render(id: number): ReactNode }) {
  const { id } = useParams();
  const n = Number(id);
  return Number.isSafeInteger(n) && n > 0 ? render(n) : <NotFoundRoute />;
}

/** SPEC.md section 2: the admin area. Loaded on demand, so players never download it. */
export default function AdminRoutes() {
  const { user, isPending } = useUser();
  const { data: servers = [] } = useGamesservers();
  const qc = useQueryClient();
  // A server edit changes what players see; this tab's own copy of the public list follows at once.
  const serversChanged = () => void qc.invalidateQueries({ queryKey: gamesserversQueryOptions().queryKey });
  if (isPending) {
    return (
      <Box sx={{ display: 'flex', justifyContent: 'center', py: 6 }}>
        <CircularProgress aria-label="Загрузка…" />
      </Box>
    );
  }
  if (!user?.admin) return <Alert severity="warning">Этот раздел доступен только операторам сервиса.</Alert>;
  return (
    // Operators work with wide tables: from md up the area breaks out of the players' 900 px column.
    <Box data-view="admin-area" sx={{ mx: { md: `calc((100% - ${ADMIN_WIDTH}) / 2)` }, width: { md: ADMIN_WIDTH } }}>
      <Routes>
        <Route
          index
          element={
            <Stack spacing={4}>
              <AdminDashboard />
              <RequestsQueue servers={servers} />
            </Stack>
          }
        />
        <Route path="servers" element={<AdminServers onChanged={serversChanged} />} />
        <Route path="users" element={<AdminUsers />} />
        <Route path="users/:id" element={<WithId render={(id) => <UserDetails key={id} id={id} currentUserId={user.id} />} />} />
        <Route path="codes" element={<AdminCodes />} />
        <Route path="incidents" element={<AdminIncidents servers={servers} />} />
        <Route path="ledger" element={<AdminLedger />} />
        <Route path="ledger/accounts/:id" element={<WithId render={(id) => <AccountEntries key={id} id={id} />} />} />
        <Route path="audit" element={<AdminAuditLog />} />
        <Route path="*" element={<NotFoundRoute />} />
      </Routes>
    </Box>
  );
}
