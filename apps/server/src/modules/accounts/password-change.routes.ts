import { changePassword } from '@adena/contract';
import type { FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { requireSignedIn } from '../../plugins/auth';
import type { PasswordChangeService } from './password-change.service';

/** POST /api/change_password (PRODUCT.md section 7). */
export const passwordChangeRoutes =
  ({ passwordChange }: { passwordChange: PasswordChangeService }): FastifyPluginAsyncZod =>
  async (app) => {
    // 401 before 422: an anonymous call learns nothing about its input.
    const authFirst = { onRequest: async (request: FastifyRequest) => void (await requireSignedIn(request)) };
    app.post(changePassword.path, { ...authFirst, schema: { body: changePassword.body, response: { 200: changePassword.response } } }, async (request) =>
      passwordChange.changePassword(await requireSignedIn(request), {
        password: request.body.password,
        newPassword: request.body.new_password,
      }),
    );
  };
