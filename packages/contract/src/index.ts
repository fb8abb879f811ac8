export * from './calls/admin';
export * from './calls/auth';
export * from './calls/codes';
export * from './calls/realtime';
export * from './calls/system';
export * from './calls/wallet';
export * from './messages/ru';
export * from './primitives';
