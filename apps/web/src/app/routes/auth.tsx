import { Navigate, Route, Routes } from 'react-router';
import { DiscordCallback } from '../../features/auth/components/discord-callback';
import { LoginForm } from '../../features/auth/components/login-form';
import { RegisterForm } from '../../features/auth/components/register-form';
import { ResetForm } from '../../features/auth/components/reset-form';
import { TelegramCallback } from '../../features/auth/components/telegram-callback';
import { NotFoundRoute } from './not-found';

export function AuthRoutes() {
  return (
    <Routes>
      <Route index element={<Navigate to="login_methods/email" replace />} />
      <Route path="login_methods" element={<Navigate to="email" replace />} />
      <Route path="login_methods/email" element={<LoginForm key="email" method="email" />} />
      <Route path="login_methods/phone" element={<LoginForm key="phone" method="phone" />} />
      <Route path="register/email" element={<RegisterForm key="email" method="email" />} />
      <Route path="register/phone" element={<RegisterForm key="phone" method="phone" />} />
      <Route path="reset/email" element={<ResetForm key="email" method="email" />} />
      <Route path="reset/phone" element={<ResetForm key="phone" method="phone" />} />
      <Route path="discord/callback" element={<DiscordCallback />} />
      <Route path="telegram/callback" element={<TelegramCallback />} />
      <Route path="*" element={<NotFoundRoute />} />
    </Routes>
  );
}
