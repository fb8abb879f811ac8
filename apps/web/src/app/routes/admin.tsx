import Box from '@mui/material/Box';
import Stack from '@mui/material/Stack';
import { useQueryClient } from '@tanstack/react-query';
import { type ReactNode, useState } from 'react';
import { Route, Switch, useParams } from 'wouter';
import { AdminAuditLog } from '../../features/admin-audit/components/admin-audit-log';
import { AdminCodes } from '../../features/admin-codes/components/admin-codes';
import { AdminDashboard } from '../../features/admin-dashboard/components/admin-dashboard';
import { AdminIncidents } from '../../features/admin-incidents/components/admin-incidents';
import { AccountEntries } from '../../features/admin-ledger/components/account-entries';
import { AdminLedger } from '../../features/admin-ledger/components/admin-ledger';
import { useClaimKeeper } from '../../features/admin-requests/api/requests';
import { RequestsQueue } from '../../features/admin-requests/components/requests-queue';
import { ShiftReport } from '../../features/admin-shift/components/shift-report';
import { ShiftSignals } from '../../features/admin-shift/components/shift-signals';
import { useOperatorsFeed } from '../../lib/operators-feed';
import { useAdminGamesservers } from '../../features/admin-servers/api/servers';
import { AdminServers } from '../../features/admin-servers/components/admin-servers';
import { AdminUsers } from '../../features/admin-users/components/admin-users';
import { UserDetails } from '../../features/admin-users/components/user-details';
import { AdminSessionCheck } from '../../features/two-factor/components/admin-session-check';
import { AdminTwoFactorWalkthrough } from '../../features/two-factor/components/admin-two-factor-walkthrough';
import { useUser } from '../../lib/session';
import { gamesserversQueryOptions } from '../../lib/gamesservers';
import { NotFoundRoute } from './not-found';

const ADMIN_WIDTH = 'min(1240px, calc(100vw - 64px))';

/** A numeric :id of the path, or the 404 page. */
function WithId({ render }: { render(id: number): ReactNode }) {
  const { id } = useParams();
  const n = Number(id);
  return Number.isSafeInteger(n) && n > 0 ? render(n) : <NotFoundRoute />;
}

/** SPEC.md section 2: the admin area. Loaded on demand and only for operators (AdminGate in router.tsx). */
export default function AdminRoutes() {
  const { user } = useUser();
  // Once begun, the walkthrough stays until the operator has seen the recovery codes («Коды сохранены»):
  // the user object read again meanwhile (on return to the tab) already says TOTP is on, and showing
  // the area then would take the codes off the screen for good.
  const [setup, setSetup] = useState<'none' | 'shown' | 'done'>('none');
  // AdminGate (router.tsx) renders this only for operators; the check here only narrows the type.
  if (!user?.admin) return null;
  // Admin calls refuse an operator without TOTP (two_factor_setup_required): set it up first.
  if (!user.two_factor && setup === 'none') setSetup('shown');
  if (setup === 'shown' || (!user.two_factor && setup === 'none')) return <AdminTwoFactorWalkthrough onDone={() => setSetup('done')} />;
  // Codes seen, the user object not read again yet.
  if (!user.two_factor) return null;
  // A session that never showed the code (a Telegram sign-in) gives it once before the area (and its live channel) starts.
  return (
    <AdminSessionCheck>
      {/* Keyed by the operator: another operator signing in here gets the area (and its live feed) afresh. */}
      <AdminArea key={user.id} userId={user.id} />
    </AdminSessionCheck>
  );
}

function AdminArea({ userId }: { userId: number }) {
  // The filters offer hidden servers too: the public list holds the active ones only.
  const { data: servers = [] } = useAdminGamesservers();
  const qc = useQueryClient();
  // A server edit changes what players see; this tab's own copy of the public list follows at once.
  const serversChanged = () => void qc.invalidateQueries({ queryKey: gamesserversQueryOptions().queryKey });
  // The operators' channel (decision record 0023): every open queue and dashboard refresh at once.
  const [created, setCreated] = useState(0);
  const refresh = () => {
    void qc.invalidateQueries({ queryKey: ['admin', 'requests'] });
    void qc.invalidateQueries({ queryKey: ['admin', 'dashboard'] });
  };
  // The operator's claims stay theirs while any page of the area is open, not only while their card is on screen.
  useClaimKeeper(userId);
  const live = useOperatorsFeed({
    onMessage: (m) => {
      if (m.name === 'request_created') setCreated((n) => n + 1);
      refresh();
    },
    onResync: refresh,
  });
  return (
    // Operators work with wide tables: from md up the area breaks out of the players' 900 px column.
    <Box data-view="admin-area" sx={{ mx: { md: `calc((100% - ${ADMIN_WIDTH}) / 2)` }, width: { md: ADMIN_WIDTH } }}>
      <Box sx={{ mb: 2 }}>
        <ShiftSignals created={created} live={live} />
      </Box>
      <Switch>
        <Route path="/admin">
          <Stack spacing={4}>
            <AdminDashboard live={live} />
            <RequestsQueue servers={servers} meId={userId} live={live} />
          </Stack>
        </Route>
        <Route path="/admin/shift">
          <ShiftReport />
        </Route>
        <Route path="/admin/servers">
          <AdminServers onChanged={serversChanged} />
        </Route>
        <Route path="/admin/users">
          <AdminUsers />
        </Route>
        <Route path="/admin/users/:id">
          <WithId render={(id) => <UserDetails key={id} id={id} currentUserId={userId} />} />
        </Route>
        <Route path="/admin/codes">
          <AdminCodes />
        </Route>
        <Route path="/admin/incidents">
          <AdminIncidents servers={servers} />
        </Route>
        <Route path="/admin/ledger">
          <AdminLedger />
        </Route>
        <Route path="/admin/ledger/accounts/:id">
          <WithId render={(id) => <AccountEntries key={id} id={id} />} />
        </Route>
        <Route path="/admin/audit">
          <AdminAuditLog />
        </Route>
        <Route>
          <NotFoundRoute />
        </Route>
      </Switch>
    </Box>
  );
}
