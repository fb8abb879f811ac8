import { routes } from '@adena/contract/lite';
import { queryOptions, useQuery } from '@tanstack/react-query';
import { request } from './api-client';

/** The service's name until the server's BRAND_NAME has come (and if it never does): the server's default, as index.html says it. */
export const DEFAULT_BRAND_NAME = 'Адена Кошелёк';

/**
 * The brand and support contacts from the server's settings (GET /api/public_config); they change only with a restart.
 * By the lite reference: the app shell (the first page) reads the brand, and the full call would bring zod with it.
 */
export const publicConfigQueryOptions = () =>
  queryOptions({ queryKey: ['public_config'], queryFn: () => request(routes.publicConfig, { token: null }), staleTime: Number.POSITIVE_INFINITY });

export const usePublicConfig = () => useQuery(publicConfigQueryOptions());

/** The service's name (BRAND_NAME) for the header, footer, tab titles and texts; DEFAULT_BRAND_NAME while it loads or if it fails. */
export function useBrandName(): string {
  const { data } = useQuery({ ...publicConfigQueryOptions(), select: (c) => c.brand_name });
  return data?.trim() || DEFAULT_BRAND_NAME;
}
