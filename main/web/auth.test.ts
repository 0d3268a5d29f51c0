import { describe, expect, it } from 'vitest';
import { checkUpgrade, newToken, ownOrigins, tokensMatch } from './auth';

describe('tokens', () => {
  it('are long, URL-safe and different each start', () => {
    const a = newToken();
    expect(a).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(newToken()).not.toBe(a);
  });

  it('match only exactly', () => {
    expect(tokensMatch('abc', 'abc')).toBe(true);
    expect(tokensMatch('abc', 'abd')).toBe(false);
    expect(tokensMatch('abc', 'abcd')).toBe(false);
    expect(tokensMatch('abc', '')).toBe(false);
    expect(tokensMatch('abc', null)).toBe(false);
  });
});

describe('checkUpgrade', () => {
  const token = 'T0KEN';
  const expected = { token, origins: ownOrigins('127.0.0.1', 4477), bindHost: '127.0.0.1' };
  const req = (url: string, origin?: string, host = '127.0.0.1:4477') => ({ url, headers: { origin, host } });

  it('accepts our path, token and origin', () => {
    expect(checkUpgrade(req('/ws?token=T0KEN', 'http://127.0.0.1:4477'), expected)).toEqual({ ok: true });
    expect(checkUpgrade(req('/ws?token=T0KEN', 'http://localhost:4477'), expected)).toEqual({ ok: true });
  });

  it('refuses a missing or wrong token with 401', () => {
    expect(checkUpgrade(req('/ws', 'http://127.0.0.1:4477'), expected)).toMatchObject({ ok: false, status: 401 });
    expect(checkUpgrade(req('/ws?token=nope', 'http://127.0.0.1:4477'), expected)).toMatchObject({ ok: false, status: 401 });
    expect(checkUpgrade(req('/ws?token=t0ken', 'http://127.0.0.1:4477'), expected)).toMatchObject({ ok: false, status: 401 });
  });

  it('refuses a foreign, missing or differently-ported Origin with 403', () => {
    for (const origin of ['http://evil.example', 'http://127.0.0.1:4478', 'https://127.0.0.1:4477', 'null', undefined]) {
      expect(checkUpgrade(req('/ws?token=T0KEN', origin), expected)).toMatchObject({ ok: false, status: 403 });
    }
  });

  it('answers 404 for any other path', () => {
    expect(checkUpgrade(req('/other?token=T0KEN', 'http://127.0.0.1:4477'), expected)).toMatchObject({ ok: false, status: 404 });
  });

  it('on a wildcard bind, accepts the page of whichever host it was reached by, still with the token', () => {
    const wild = { token, origins: ownOrigins('127.0.0.1', 4477), bindHost: '0.0.0.0' };
    expect(checkUpgrade(req('/ws?token=T0KEN', 'http://10.0.0.5:4477', '10.0.0.5:4477'), wild)).toEqual({ ok: true });
    expect(checkUpgrade(req('/ws?token=T0KEN', 'http://evil.example', '10.0.0.5:4477'), wild)).toMatchObject({ ok: false, status: 403 });
    expect(checkUpgrade(req('/ws?token=bad', 'http://10.0.0.5:4477', '10.0.0.5:4477'), wild)).toMatchObject({ ok: false, status: 401 });
  });
});
