// Method and path of the calls the web app's first page makes, typed by the full contract but
// without importing zod at run time (`import type` is erased). `request()` needs only these two;
// the schemas stay in the full entry for the server and for forms. routes.test.ts keeps each
// reference equal to its call.
import type * as C from './index';

export interface CallRef<Call extends { method: string; path: string }> {
  readonly method: Call['method'];
  readonly path: Call['path'];
  /** Type-only: the call this refers to, for its body and response types. */
  readonly __call?: Call;
}

const ref = <Call extends { method: string; path: string }>(method: Call['method'], path: Call['path']) =>
  ({ method, path }) as CallRef<Call>;

export const routes = {
  gamesservers: ref<typeof C.gamesservers>('GET', '/api/gamesservers'),
  getUser: ref<typeof C.getUser>('GET', '/api/user'),
  publicConfig: ref<typeof C.publicConfig>('GET', '/api/public_config'),
  logout: ref<typeof C.logout>('GET', '/api/logout'),
  webApp: ref<typeof C.webApp>('POST', '/api/web_app'),
  wallets: ref<typeof C.wallets>('GET', '/api/wallets'),
  saveNick: ref<typeof C.saveNick>('POST', '/api/save_nick/'),
  ablyToken: ref<typeof C.ablyToken>('POST', '/api/ably-token'),
  getErrorUserCode: ref<typeof C.getErrorUserCode>('GET', '/api/get_error_user_code'),
  getUserInputOutputBalance: ref<typeof C.getUserInputOutputBalance>('GET', '/api/get_user_input_output_balance'),
  deleteBalanceUser: ref<typeof C.deleteBalanceUser>('GET', '/api/delete_balance_user/:id'),
  deleteRequest: ref<typeof C.deleteRequest>('POST', '/api/delete_request/'),
  upBalanceUser: ref<typeof C.upBalanceUser>('POST', '/api/up_balance_user/'),
  upBalanceUserSecondCurrency: ref<typeof C.upBalanceUserSecondCurrency>('POST', '/api/up_balance_user_second_currency/'),
  downBalanceUser: ref<typeof C.downBalanceUser>('POST', '/api/down_balance_user/'),
  downBalanceUserSecondCurrency: ref<typeof C.downBalanceUserSecondCurrency>('POST', '/api/down_balance_user_second_currency/'),
};
