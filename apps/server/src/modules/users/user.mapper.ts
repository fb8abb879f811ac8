/** @deprecated Moved to modules/accounts/accounts.mapper.ts; kept while codes and admin import it from here. */
export { toUser } from '../accounts/accounts.mapper';
