import type { ReactNode } from 'react';
import { Redirect, Route, Switch } from 'wouter';
import { DiscordCallback } from '../../features/auth/components/discord-callback';
import { LoginForm } from '../../features/auth/components/login-form';
import { RegisterForm } from '../../features/auth/components/register-form';
import { ResetForm } from '../../features/auth/components/reset-form';
import { TelegramCallback } from '../../features/auth/components/telegram-callback';
import { peekReturnTo } from '../../lib/return-to';
import { useUser } from '../../lib/session';
import { TwoFactorStep } from '../../features/auth/components/two-factor-step';
import { NotFoundRoute } from './not-found';

/** The sign-in, sign-up and reset pages send a signed-in player back where they came from. */
function SignedOut({ children }: { children: ReactNode }) {
  const { isSignedIn } = useUser();
  return isSignedIn ? <Redirect to={peekReturnTo()} replace /> : children;
}

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
        <SignedOut>
          <LoginForm key="email" method="email" />
        </SignedOut>
      </Route>
      <Route path="/auth/login_methods/phone">
        <SignedOut>
          <LoginForm key="phone" method="phone" />
        </SignedOut>
      </Route>
      <Route path="/auth/register/email">
        <SignedOut>
          <RegisterForm key="email" method="email" />
        </SignedOut>
      </Route>
      <Route path="/auth/register/phone">
        <SignedOut>
          <RegisterForm key="phone" method="phone" />
        </SignedOut>
      </Route>
      <Route path="/auth/reset/email">
        <SignedOut>
          <ResetForm key="email" method="email" />
        </SignedOut>
      </Route>
      <Route path="/auth/reset/phone">
        <SignedOut>
          <ResetForm key="phone" method="phone" />
        </SignedOut>
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
