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
  logout,
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
import type { Deps } from '../../app';
import { requireUser } from '../../plugins/auth';
import { bearerOf } from '../../lib/tokens';
import { createAuthService } from './auth.service';
import { createSender, type Sender } from './messaging';

const actor = (request: FastifyRequest) => ({ ip: request.ip });
const bearer = (request: FastifyRequest) => bearerOf(request.headers.authorization);
const schema = <B, R>(call: { body?: B; response: R }) => ({ body: call.body as B, response: { 200: call.response } });

/** Accounts and sessions: PRODUCT.md section 3's session calls. Thin: contract schema in, one service call. */
export const authRoutes =
  (deps: Deps, opts: { sender?: Sender } = {}): FastifyPluginAsyncZod =>
  async (app) => {
    const sender = opts.sender ?? createSender(deps.config, app.log);
    const service = createAuthService({ db: deps.db.kysely, config: deps.config, sender, log: app.log });
    app.addHook('onClose', async () => {
      // Codes already promised to players are handed over before the process exits.
      await service.settle();
      if ('close' in sender && typeof sender.close === 'function') sender.close();
    });

    // Sign-up by email and by phone.
    app.post(emailRegister.path, { schema: schema(emailRegister) }, async (request) => {
      const { email, password, name } = request.body;
      return { email_token: await service.startRegistration(actor(request), 'email', { address: email, password, name }) };
    });
    app.post(newTokenEmailRegister.path, { schema: schema(newTokenEmailRegister) }, async (request) => ({
      email_token: await service.resendRegistration(actor(request), 'email', request.body.email_token),
    }));
    app.post(codeVerificationEmailRegister.path, { schema: schema(codeVerificationEmailRegister) }, (request) =>
      service.verifyRegistration(actor(request), 'email', request.body.email_token, request.body.code),
    );
    app.post(phoneRegister.path, { schema: schema(phoneRegister) }, async (request) => {
      const { phone, password, name } = request.body;
      return { phone_token: await service.startRegistration(actor(request), 'phone', { address: phone, password, name }) };
    });
    app.post(newTokenPhoneRegister.path, { schema: schema(newTokenPhoneRegister) }, async (request) => ({
      phone_token: await service.resendRegistration(actor(request), 'phone', request.body.phone_token),
    }));
    app.post(codeVerificationPhoneRegister.path, { schema: schema(codeVerificationPhoneRegister) }, (request) =>
      service.verifyRegistration(actor(request), 'phone', request.body.phone_token, request.body.code),
    );

    // Sign-in.
    app.post(login.path, { schema: schema(login) }, (request) =>
      service.login(actor(request), 'email', request.body.email, request.body.password),
    );
    app.post(phoneLogin.path, { schema: schema(phoneLogin) }, (request) =>
      service.login(actor(request), 'phone', request.body.phone, request.body.password),
    );

    // Password reset: request → code check → new password with new_password_token as the bearer.
    app.post(emailResetPasswordCodeDate.path, { schema: schema(emailResetPasswordCodeDate) }, async (request) => ({
      email_reset_password_token: await service.startReset(actor(request), 'email', request.body.email),
    }));
    app.post(emailResetPasswordCodeCheck.path, { schema: schema(emailResetPasswordCodeCheck) }, async (request) => ({
      new_password_token: await service.checkResetCode(actor(request), 'email', request.body.email_reset_password_token, request.body.code),
    }));
    app.post(emailCreateNewPassword.path, { schema: schema(emailCreateNewPassword) }, (request) =>
      service.createNewPassword(bearer(request), request.body.password),
    );
    app.post(phoneResetPassword.path, { schema: schema(phoneResetPassword) }, async (request) => ({
      phone_reset_token: await service.startReset(actor(request), 'phone', request.body.phone),
    }));
    app.post(phoneResetPasswordCodeCheck.path, { schema: schema(phoneResetPasswordCodeCheck) }, async (request) => ({
      new_password_token: await service.checkResetCode(actor(request), 'phone', request.body.phone_reset_token, request.body.code),
    }));
    app.post(phoneCreateNewPassword.path, { schema: schema(phoneCreateNewPassword) }, (request) =>
      service.createNewPassword(bearer(request), request.body.password),
    );

    // Discord and Telegram.
    app.get(authConfig.path, { schema: { response: { 200: authConfig.response } } }, (request) =>
      service.authConfig(`${request.protocol}://${request.host}`),
    );
    app.post(discordAuth.path, { schema: schema(discordAuth) }, (request) => service.discordSignIn(actor(request), request.body));
    app.post(telegramAuth.path, { schema: schema(telegramAuth) }, (request) => service.telegramWidgetSignIn(actor(request), request.body));
    app.post(webApp.path, { schema: schema(webApp) }, (request) => service.webAppSignIn(actor(request), request.body.init_data));

    // Session.
    app.get(getUser.path, { schema: { response: { 200: getUser.response } } }, async (request) => service.toUser(await requireUser(request)));
    app.get(logout.path, { schema: { response: { 200: logout.response } } }, async (request) => {
      await service.logout(bearer(request));
      return { logout: true as const };
    });
  };
