import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from './config';

describe('settings', () => {
  it('has working defaults for a bare machine', () => {
    const c = loadConfig({});
    expect(c).toMatchObject({ PORT: 3000, DATA_DIR: './data', DEMO_SERVERS: true });
    // No DATABASE_URL: the embedded database.
    expect(c.DATABASE_URL).toBeUndefined();
    expect(c.DATABASE_POOL_SIZE).toBe(8);
  });

  it('refuses a database pool too small for a transaction and a read beside it', () => {
    expect(() => loadConfig({ DATABASE_POOL_SIZE: '1' })).toThrow(/^Invalid setting DATABASE_POOL_SIZE="1"/);
    expect(loadConfig({ DATABASE_POOL_SIZE: '4' }).DATABASE_POOL_SIZE).toBe(4);
  });

  it('refuses a bad port with one line naming the setting', () => {
    expect(() => loadConfig({ PORT: 'abc' })).toThrow(ConfigError);
    expect(() => loadConfig({ PORT: 'abc' })).toThrow(/^Invalid setting PORT="abc"/);
    // An address without http(s) passed a bare URL check and broke passkeys and Discord's redirect at run time.
    for (const url of ['localhost:3000', 'javascript:alert(1)', 'ftp://example.com']) {
      expect(() => loadConfig({ PUBLIC_URL: url })).toThrow(/^Invalid setting PUBLIC_URL=.*http:\/\/ или https:\/\//);
    }
    expect(loadConfig({ PUBLIC_URL: 'https://adena.example' }).PUBLIC_URL).toBe('https://adena.example');
  });

  it('never shows a secret in the refusal it prints at start (the logs keep it): only its name and length, a URL without its password', () => {
    const refusal = (env: Record<string, string>) => {
      try {
        loadConfig(env);
      } catch (err) {
        return (err as Error).message;
      }
      throw new Error('accepted');
    };
    expect(refusal({ SECRET_KEY: 'my-real-secret-key-only-31-char' })).toBe('Invalid setting SECRET_KEY=(hidden, 31 characters): не короче 32 символов');
    expect(refusal({ ADMIN_EMAIL: 'a@b.ru', ADMIN_PASSWORD: 'short' })).toMatch(/^Invalid setting ADMIN_PASSWORD=\(hidden, 5 characters\): /);
    const db = refusal({ DATABASE_URL: 'postgresql+psycopg://app:DbPa55word@db/adena' });
    expect(db).toMatch(/^Invalid setting DATABASE_URL="postgresql\+psycopg:\/\/\*\*\*@db\/adena": /);
    const smtp = refusal({ SMTP_URL: 'smtp+starttls://mailer:SmtpPa55@mail.example.com' });
    expect(smtp).toMatch(/^Invalid setting SMTP_URL="smtp\+starttls:\/\/\*\*\*@mail\.example\.com": /);
    // Passwords with `/` or `@` in them (base64, generated ones).
    const slash = refusal({ DATABASE_URL: 'postgresql+psycopg://app:Db/Pa55@x@db/adena' });
    const sms = refusal({ SMS_API_URL: 'https://u:Sms/Pa55@sms.example/x y', SMS_API_KEY: 'k' });
    // Refused for lacking a scheme, or in libpq's key/value form (review 2026-11-27: shown as given).
    const keyValue = refusal({ DATABASE_URL: 'host=db user=adena password=KvPa55 dbname=adena' });
    expect(keyValue).toMatch(/^Invalid setting DATABASE_URL="host=db user=adena password=\*\*\* dbname=adena": /);
    const noScheme = refusal({ DATABASE_URL: 'adena:NsPa55@db:5432/adena' });
    expect(noScheme).toMatch(/^Invalid setting DATABASE_URL="\*\*\*@db:5432\/adena": /);
    const mailNoScheme = refusal({ SMTP_URL: 'mailer:MsPa55@smtp.example.com:587' });
    for (const text of [db, smtp, slash, sms, keyValue, noScheme, mailNoScheme]) expect(text).not.toMatch(/Pa55/);
  });

  it('needs the admin email and password together', () => {
    expect(() => loadConfig({ ADMIN_EMAIL: 'a@b.ru' })).toThrow(/ADMIN_PASSWORD/);
  });

  it('names the brand and support contacts; the mail sender defaults to the brand', () => {
    const bare = loadConfig({});
    expect(bare).toMatchObject({ BRAND_NAME: 'Адена Кошелёк', MAIL_FROM: '"Адена Кошелёк" <no-reply@adena.local>' });
    expect(bare.SUPPORT_EMAIL).toBeUndefined();
    expect(bare.SUPPORT_TELEGRAM).toBeUndefined();
    const set = loadConfig({ BRAND_NAME: 'L2 Банк', SUPPORT_EMAIL: 'help@l2bank.ru', SUPPORT_TELEGRAM: '@l2bank_help' });
    expect(set).toMatchObject({ MAIL_FROM: '"L2 Банк" <no-reply@adena.local>', SUPPORT_EMAIL: 'help@l2bank.ru', SUPPORT_TELEGRAM: 'l2bank_help' });
    expect(loadConfig({ SUPPORT_TELEGRAM: 'https://t.me/l2bank_help' }).SUPPORT_TELEGRAM).toBe('l2bank_help');
    expect(() => loadConfig({ SUPPORT_TELEGRAM: '@x y' })).toThrow(/^Invalid setting SUPPORT_TELEGRAM=/);
    expect(() => loadConfig({ SUPPORT_EMAIL: 'nope' })).toThrow(/^Invalid setting SUPPORT_EMAIL=/);
  });

  it('treats empty values as unset, for every setting', () => {
    expect(loadConfig({ DATABASE_URL: '', SMTP_URL: '' }).DATABASE_URL).toBeUndefined();
    // `ADMIN_REQUIRE_2FA=` in an env file (or compose's `${ADMIN_REQUIRE_2FA:-}`) keeps the admins' second factor on.
    const empty = loadConfig({ ADMIN_REQUIRE_2FA: '', DEMO_SERVERS: ' ', WEBHOOK_ALLOW_PRIVATE: '', PORT: '', SHUTDOWN_DELAY_MS: '', DATA_DIR: '', TRUST_PROXY: '' });
    expect(empty).toMatchObject({ ADMIN_REQUIRE_2FA: true, DEMO_SERVERS: true, WEBHOOK_ALLOW_PRIVATE: false, PORT: 3000, SHUTDOWN_DELAY_MS: 5000, DATA_DIR: './data', TRUST_PROXY: false });
  });

  it('refuses at start, in one line, proxy addresses Fastify could not use', () => {
    for (const bad of ['cafe', '999.1.1.1', '10.0.0.0/99', 'dead:beef/200', '10.0.0.1/8/8']) {
      expect(() => loadConfig({ TRUST_PROXY: bad }), bad).toThrow(/^Invalid setting TRUST_PROXY=/);
    }
    expect(loadConfig({ TRUST_PROXY: '10.0.0.5, 10.1.0.0/16, ::1, fd00::/8' }).TRUST_PROXY).toEqual(['10.0.0.5', '10.1.0.0/16', '::1', 'fd00::/8']);
  });

  it('SMS_COUNTRIES: ISO codes in any case and separator, or * for any country; an unknown code stops the start in one line; the sign-up SMS budget', () => {
    const bare = loadConfig({ SMS_COUNTRIES: '' });
    expect([...bare.SMS_COUNTRIES!]).toEqual(['RU', 'KZ', 'BY', 'UA', 'AM', 'AZ', 'GE', 'KG', 'MD', 'TJ', 'UZ', 'TM']);
    expect(bare).toMatchObject({ SMS_SIGNUP_PER_HOUR: 60, SMS_SIGNUP_PER_DAY: 300 });
    expect([...loadConfig({ SMS_COUNTRIES: ' ru, kz by ' }).SMS_COUNTRIES!]).toEqual(['RU', 'KZ', 'BY']);
    expect(loadConfig({ SMS_COUNTRIES: '*' }).SMS_COUNTRIES).toBeNull();
    expect(() => loadConfig({ SMS_COUNTRIES: 'RU,RUS' })).toThrow(/^Invalid setting SMS_COUNTRIES="RU,RUS": .*неизвестный код RUS$/);
    expect(() => loadConfig({ SMS_COUNTRIES: 'RU,XX' })).toThrow(/^Invalid setting SMS_COUNTRIES=/);
    expect(() => loadConfig({ SMS_COUNTRIES: ',' })).toThrow(/^Invalid setting SMS_COUNTRIES=/);
    expect(loadConfig({ SMS_SIGNUP_PER_HOUR: '0', SMS_SIGNUP_PER_DAY: '1000' })).toMatchObject({ SMS_SIGNUP_PER_HOUR: 0, SMS_SIGNUP_PER_DAY: 1000 });
    expect(() => loadConfig({ SMS_SIGNUP_PER_HOUR: '-1' })).toThrow(/^Invalid setting SMS_SIGNUP_PER_HOUR=/);
    expect(() => loadConfig({ SMS_SIGNUP_PER_DAY: 'many' })).toThrow(/^Invalid setting SMS_SIGNUP_PER_DAY=/);
  });

  it('JOBS: on (the default, also when empty) or off; anything else stops the start in one line', () => {
    expect(loadConfig({}).JOBS).toBe('on');
    expect(loadConfig({ JOBS: '' }).JOBS).toBe('on');
    expect(loadConfig({ JOBS: 'off' }).JOBS).toBe('off');
    expect(loadConfig({ JOBS: 'on' }).JOBS).toBe('on');
    for (const bad of ['false', '0', 'no', 'OFF', 'of']) {
      expect(() => loadConfig({ JOBS: bad }), bad).toThrow(new ConfigError(`Invalid setting JOBS="${bad}": ожидается on или off`));
    }
  });
});
