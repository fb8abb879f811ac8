import { Redirect, Route, Switch } from 'wouter';
import { DiscordCallback } from '../../features/auth/components/discord-callback';
import { LoginForm } from '../../features/auth/components/login-form';
import { RegisterForm } from '../../features/auth/components/register-form';
import { ResetForm } from '../../features/auth/components/reset-form';
import { TelegramCallback } from '../../features/auth/components/telegram-callback';
import { TwoFactorStep } from '../../features/auth/components/two-factor-step';
import { NotFoundRoute } from './not-found';

export function AuthRoutes() {
  return (
    <Switch>
      <Route path="/auth">
        <Redirect to="/auth/login_methods/email" replace />
      </Route>
      <Route path="/auth/login_methods">
        <Redirect to="/auth/login_methods/email" replace />
      </Route>
      <Route path="/auth/login_methods/email">
        <LoginForm key="email" method="email" />
      </Route>
      <Route path="/auth/login_methods/phone">
        <LoginForm key="phone" method="phone" />
      </Route>
      <Route path="/auth/register/email">
        <RegisterForm key="email" method="email" />
      </Route>
      <Route path="/auth/register/phone">
        <RegisterForm key="phone" method="phone" />
      </Route>
      <Route path="/auth/reset/email">
        <ResetForm key="email" method="email" />
      </Route>
      <Route path="/auth/reset/phone">
        <ResetForm key="phone" method="phone" />
      </Route>
      <Route path="/auth/discord/callback">
        <DiscordCallback />
      </Route>
      <Route path="/auth/two_factor">
        <TwoFactorStep />
      </Route>
      <Route path="/auth/telegram/callback">
        <TelegramCallback />
      </Route>
      <Route>
        <NotFoundRoute />
      </Route>
    </Switch>
  );
}
