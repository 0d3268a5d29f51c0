import { describe, expect, it } from 'vitest';
import { addressWithoutToken, resolveToken, webSocketUrl } from './token';

function memoryStorage() {
  const map = new Map<string, string>();
  return { getItem: (k: string) => map.get(k) ?? null, setItem: (k: string, v: string) => void map.set(k, v) };
}

describe('the access token', () => {
  it('is read from ?token= and kept for reloads', () => {
    const storage = memoryStorage();
    expect(resolveToken('?token=abc', storage)).toBe('abc');
    expect(resolveToken('', storage)).toBe('abc');
  });

  it('is absent when neither the address nor the session has one', () => {
    expect(resolveToken('?x=1', memoryStorage())).toBeNull();
    expect(resolveToken('', null)).toBeNull();
  });

  it('goes into the WebSocket address, with the scheme matching the page', () => {
    expect(webSocketUrl({ protocol: 'http:', host: '127.0.0.1:5000' }, 'a b')).toBe('ws://127.0.0.1:5000/ws?token=a%20b');
    expect(webSocketUrl({ protocol: 'https:', host: 'h' }, null)).toBe('wss://h/ws');
  });

  it('is removed from the address bar, keeping other parameters', () => {
    expect(addressWithoutToken('http://h/?token=abc')).toBe('/');
    expect(addressWithoutToken('http://h/app?x=1&token=abc#p')).toBe('/app?x=1#p');
    expect(addressWithoutToken('http://h/')).toBeNull();
  });
});
