// The zod-free part of the contract, for code on the web app's first page.
export * from './constants';
export * from './messages/amount';
export * from './messages/catalogue';
export * from './messages/decision';
export * from './messages/wait';
export * from './routes';
export type { AuthResponse, SignInResponse, User } from './calls/auth';
export type { Gamesserver } from './calls/system';
export type { CurrencyType } from './primitives';
export type { Request, Wallet } from './calls/wallet';
export type { RealtimeEventName, RealtimeEvents, RealtimeMessage } from './calls/realtime';
export type { Session, SessionEndReason } from './calls/sessions';
export type { RequestStatusEvent, StatementEntry, StatementKind } from './calls/statement';
