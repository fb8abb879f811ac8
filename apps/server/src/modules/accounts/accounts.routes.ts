import {
  authConfig,
  codeVerificationEmailRegister,
  codeVerificationPhoneRegister,
  discordAuth,
  emailCreateNewPassword,
  emailRegister,
  emailResetPasswordCodeCheck,
  emailResetPasswordCodeDate,
  getUser,
  login,
  newTokenEmailRegister,
  newTokenPhoneRegister,
  phoneCreateNewPassword,
  phoneLogin,
  phoneRegister,
  phoneResetPassword,
  phoneResetPasswordCodeCheck,
  telegramAuth,
  webApp,
} from '@adena/contract';
import type { FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { bearerOf } from '../../lib/tokens';
import { clientOf, requireSignedIn } from '../../plugins/auth';
import { browserKeyOf, ensureBrowserKey } from '../../plugins/browser';
import type { AccountsService } from './accounts.service';
import type { ExternalSignInService } from './external-sign-in.service';
import type { ResetService } from './reset.service';
import type { SignUpService } from './sign-up.service';

const bearer = (request: FastifyRequest) => bearerOf(request.headers.authorization);
const schema = <B, R>(call: { body?: B; response: R }) => ({ body: call.body as B, response: { 200: call.response } });

export interface AccountsRoutesDeps {
  accounts: AccountsService;
  signUp: SignUpService;
  reset: ResetService;
  externalSignIn: ExternalSignInService;
}

/** Accounts: PRODUCT.md section 3's sign-up, sign-in, reset and user calls. Thin: contract schema in, one service call. */
export const accountsRoutes =
  ({ accounts, signUp, reset, externalSignIn }: AccountsRoutesDeps): FastifyPluginAsyncZod =>
  async (app) => {
    // Sign-ups, sign-ins and resets give a browser without one its key: the session it signs in
    // remembers the browser, whose own resets a stranger's requests then cannot hold back.
    app.addHook('onRequest', async (request, reply) => {
      if (request.method === 'POST') ensureBrowserKey(request, reply);
    });
    // Sign-up by email and by phone.
    app.post(emailRegister.path, { schema: schema(emailRegister) }, async (request) => {
      const { email, password, name } = request.body;
      return { email_token: await signUp.startRegistration(clientOf(request), 'email', { address: email, password, name }) };
    });
    app.post(newTokenEmailRegister.path, { schema: schema(newTokenEmailRegister) }, async (request) => ({
      email_token: await signUp.resendRegistration(clientOf(request), 'email', request.body.email_token),
    }));
    app.post(codeVerificationEmailRegister.path, { schema: schema(codeVerificationEmailRegister) }, (request) =>
      signUp.verifyRegistration(clientOf(request), 'email', request.body.email_token, request.body.code),
    );
    app.post(phoneRegister.path, { schema: schema(phoneRegister) }, async (request) => {
      const { phone, password, name } = request.body;
      return { phone_token: await signUp.startRegistration(clientOf(request), 'phone', { address: phone, password, name }) };
    });
    app.post(newTokenPhoneRegister.path, { schema: schema(newTokenPhoneRegister) }, async (request) => ({
      phone_token: await signUp.resendRegistration(clientOf(request), 'phone', request.body.phone_token),
    }));
    app.post(codeVerificationPhoneRegister.path, { schema: schema(codeVerificationPhoneRegister) }, (request) =>
      signUp.verifyRegistration(clientOf(request), 'phone', request.body.phone_token, request.body.code),
    );

    // Sign-in.
    app.post(login.path, { schema: schema(login) }, (request) =>
      accounts.login(clientOf(request), 'email', request.body.email, request.body.password),
    );
    app.post(phoneLogin.path, { schema: schema(phoneLogin) }, (request) =>
      accounts.login(clientOf(request), 'phone', request.body.phone, request.body.password),
    );

    // Password reset: request → code check → new password with new_password_token as the bearer.
    app.post(emailResetPasswordCodeDate.path, { schema: schema(emailResetPasswordCodeDate) }, async (request) => ({
      email_reset_password_token: await reset.startReset(clientOf(request), 'email', request.body.email),
    }));
    app.post(emailResetPasswordCodeCheck.path, { schema: schema(emailResetPasswordCodeCheck) }, async (request) => ({
      new_password_token: await reset.checkResetCode(clientOf(request), 'email', request.body.email_reset_password_token, request.body.code),
    }));
    app.post(emailCreateNewPassword.path, { schema: schema(emailCreateNewPassword) }, (request) =>
      reset.createNewPassword(clientOf(request), 'email', bearer(request), request.body.password),
    );
    app.post(phoneResetPassword.path, { schema: schema(phoneResetPassword) }, async (request) => ({
      phone_reset_token: await reset.startReset(clientOf(request), 'phone', request.body.phone),
    }));
    app.post(phoneResetPasswordCodeCheck.path, { schema: schema(phoneResetPasswordCodeCheck) }, async (request) => ({
      new_password_token: await reset.checkResetCode(clientOf(request), 'phone', request.body.phone_reset_token, request.body.code),
    }));
    app.post(phoneCreateNewPassword.path, { schema: schema(phoneCreateNewPassword) }, (request) =>
      reset.createNewPassword(clientOf(request), 'phone', bearer(request), request.body.password),
    );

    // Discord and Telegram.
    // Discord's state is bound to the browser that asked for it through an HttpOnly cookie.
    app.get(authConfig.path, { schema: { response: { 200: authConfig.response } } }, (request, reply) =>
      externalSignIn.authConfig(`${request.protocol}://${request.host}`, ensureBrowserKey(request, reply)),
    );
    app.post(discordAuth.path, { schema: schema(discordAuth) }, (request) =>
      externalSignIn.discordSignIn(clientOf(request), request.body, browserKeyOf(request)),
    );
    app.post(telegramAuth.path, { schema: schema(telegramAuth) }, (request) =>
      externalSignIn.telegramWidgetSignIn(clientOf(request), request.body),
    );
    app.post(webApp.path, { schema: schema(webApp) }, (request) => externalSignIn.webAppSignIn(clientOf(request), request.body.init_data));

    // The signed-in user's own object.
    app.get(getUser.path, { schema: { response: { 200: getUser.response } } }, async (request) => accounts.me(await requireSignedIn(request)));
  };
