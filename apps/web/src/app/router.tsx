import { lazy } from 'react';
import { Route, Routes } from 'react-router';
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
    <Routes>
      <Route element={<AppShell />}>
        <Route index element={<HomeRoute />} />
        <Route path="help" element={<HelpRoute />} />
        <Route path="contacts" element={<ContactsRoute />} />
        <Route path="about" element={<AboutRoute />} />
        <Route path="auth/*" element={<AuthRoutes />} />
        <Route path="admin/*" element={<AdminRoutes />} />
        <Route path="*" element={<NotFoundRoute />} />
      </Route>
    </Routes>
  );
}
