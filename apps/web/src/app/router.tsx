import { lazy } from 'react';
import { Route, Switch } from 'wouter';
import { AppShell } from '../components/layouts/app-shell';
import { HomeRoute } from './routes/home';
import { NotFoundRoute } from './routes/not-found';

// Everything but the home page loads on demand; the admin area is its own chunk.
const AuthRoutes = lazy(() => import('./routes/auth').then((m) => ({ default: m.AuthRoutes })));
const HelpRoute = lazy(() => import('./routes/info').then((m) => ({ default: m.HelpRoute })));
const ContactsRoute = lazy(() => import('./routes/info').then((m) => ({ default: m.ContactsRoute })));
const AboutRoute = lazy(() => import('./routes/info').then((m) => ({ default: m.AboutRoute })));
const AdminRoutes = lazy(() => import('./routes/admin'));

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
        <Route path="/auth/*?">
          <AuthRoutes />
        </Route>
        <Route path="/admin/*?">
          <AdminRoutes />
        </Route>
        <Route>
          <NotFoundRoute />
        </Route>
      </Switch>
    </AppShell>
  );
}
