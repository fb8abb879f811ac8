import { Route, Routes } from 'react-router';
import { AppShell } from '../components/layouts/app-shell';
import { AuthRoutes } from './routes/auth';
import { AboutRoute, ContactsRoute, HelpRoute } from './routes/info';
import { HomeRoute } from './routes/home';
import { NotFoundRoute } from './routes/not-found';

export function AppRouter() {
  return (
    <Routes>
      <Route element={<AppShell />}>
        <Route index element={<HomeRoute />} />
        <Route path="help" element={<HelpRoute />} />
        <Route path="contacts" element={<ContactsRoute />} />
        <Route path="about" element={<AboutRoute />} />
        <Route path="auth/*" element={<AuthRoutes />} />
        <Route path="*" element={<NotFoundRoute />} />
      </Route>
    </Routes>
  );
}
