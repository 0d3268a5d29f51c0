import { describe, expect, it } from 'vitest';
import { allowedHosts, checkUpgrade, hostAllowed, isLoopbackHost, newToken, ownOrigins, tokensMatch } from './auth';

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
  const expected = { token, origins: ownOrigins(allowedHosts('127.0.0.1', 4477)) };
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

  it('on a remote bind, accepts the pages of the names the operator allowed, still with the token', () => {
    const remote = { token, origins: ownOrigins(allowedHosts('0.0.0.0', 4477, ['box.lan', '10.0.0.5'])) };
    expect(checkUpgrade(req('/ws?token=T0KEN', 'http://10.0.0.5:4477', '10.0.0.5:4477'), remote)).toEqual({ ok: true });
    expect(checkUpgrade(req('/ws?token=T0KEN', 'http://box.lan:4477', 'box.lan:4477'), remote)).toEqual({ ok: true });
    expect(checkUpgrade(req('/ws?token=T0KEN', 'http://evil.example', '10.0.0.5:4477'), remote)).toMatchObject({ ok: false, status: 403 });
    expect(checkUpgrade(req('/ws?token=bad', 'http://10.0.0.5:4477', '10.0.0.5:4477'), remote)).toMatchObject({ ok: false, status: 401 });
  });
});

describe('the Host a request may name', () => {
  it('is a loopback name on our port, for a loopback bind', () => {
    const hosts = allowedHosts('127.0.0.1', 4477);
    for (const host of ['127.0.0.1:4477', 'localhost:4477', 'LOCALHOST:4477', '[::1]:4477']) expect([host, hostAllowed(host, hosts)]).toEqual([host, true]);
    for (const host of ['evil.example:4477', 'evil.example', '127.0.0.1:4478', '127.0.0.1', 'localhost.evil.example:4477', '', undefined]) {
      expect([host, hostAllowed(host, hosts)]).toEqual([host, false]);
    }
  });

  it('also names the bound address and the names allowed for remote use', () => {
    const hosts = allowedHosts('192.168.1.5', 80, ['box.lan']);
    for (const host of ['192.168.1.5:80', '192.168.1.5', 'box.lan', 'box.lan:80', 'localhost']) expect([host, hostAllowed(host, hosts)]).toEqual([host, true]);
    expect(hostAllowed('evil.example', hosts)).toBe(false);
  });

  it('tells loopback binds from the rest', () => {
    for (const host of ['127.0.0.1', '127.1.2.3', '::1', '[::1]', 'localhost']) expect([host, isLoopbackHost(host)]).toEqual([host, true]);
    for (const host of ['0.0.0.0', '::', '', '192.168.1.5', 'box.lan', '127.0.0.1.evil.example']) expect([host, isLoopbackHost(host)]).toEqual([host, false]);
  });
});
