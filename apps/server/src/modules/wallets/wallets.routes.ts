import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { Deps } from '../../app';

// Placeholder: the module's calls are registered here.
export const walletsRoutes =
  (_deps: Deps): FastifyPluginAsyncZod =>
  async () => {};
