import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from './config';

describe('settings', () => {
  it('has working defaults for a bare machine', () => {
    const c = loadConfig({});
    expect(c).toMatchObject({ PORT: 3000, DATA_DIR: './data', DEMO_SERVERS: true });
    // No DATABASE_URL: the embedded database.
    expect(c.DATABASE_URL).toBeUndefined();
  });

  it('refuses a bad port with one line naming the setting', () => {
    expect(() => loadConfig({ PORT: 'abc' })).toThrow(ConfigError);
    expect(() => loadConfig({ PORT: 'abc' })).toThrow(/^Invalid setting PORT="abc"/);
  });

  it('needs the admin email and password together', () => {
    expect(() => loadConfig({ ADMIN_EMAIL: 'a@b.ru' })).toThrow(/ADMIN_PASSWORD/);
  });

  it('treats empty values as unset', () => {
    expect(loadConfig({ DATABASE_URL: '', SMTP_URL: '' }).DATABASE_URL).toBeUndefined();
  });
});
