import { lazy } from 'react';
import { Route, Switch } from 'wouter';
import { AppShell } from './layout/app-shell';
import { UserReadFailed } from '../components/user-read-failed';
import { useUser } from '../lib/session';
import { HomeRoute } from './routes/home';
import { NotFoundRoute } from './routes/not-found';

// Everything but the home page loads on demand; the admin area is its own chunk.
const AuthRoutes = lazy(() => import('./routes/auth').then((m) => ({ default: m.AuthRoutes })));
const HelpRoute = lazy(() => import('./routes/info').then((m) => ({ default: m.HelpRoute })));
const ContactsRoute = lazy(() => import('./routes/info').then((m) => ({ default: m.ContactsRoute })));
const AboutRoute = lazy(() => import('./routes/info').then((m) => ({ default: m.AboutRoute })));
const ProfileRoute = lazy(() => import('./routes/profile'));
const SellersRoute = lazy(() => import('./routes/sellers'));
const AdminRoutes = lazy(() => import('./routes/admin'));
const AdminDenied = lazy(() => import('./routes/admin-denied'));

/** Only operators load the admin area's code; anyone else gets a short notice without it. */
function AdminGate() {
  const { user, isPending, readFailed } = useUser();
  if (isPending) return null;
  // Who is signed in could not be read: an operator is not told the area is for operators only.
  if (readFailed) return <UserReadFailed />;
  return user?.admin ? <AdminRoutes /> : <AdminDenied />;
}

export function AppRouter() {
  return (
    <AppShell>
      <Switch>
        <Route path="/">
          <HomeRoute />
        </Route>
        <Route path="/help">
          <HelpRoute />
        </Route>
        <Route path="/contacts">
          <ContactsRoute />
        </Route>
        <Route path="/about">
          <AboutRoute />
        </Route>
        <Route path="/profile">
          <ProfileRoute />
        </Route>
        <Route path="/sellers">
          <SellersRoute />
        </Route>
        <Route path="/auth/*?">
          <AuthRoutes />
        </Route>
        <Route path="/admin/*?">
          <AdminGate />
        </Route>
        <Route>
          <NotFoundRoute />
        </Route>
      </Switch>
    </AppShell>
  );
}
