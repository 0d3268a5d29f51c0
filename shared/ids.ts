import { ulid } from 'ulid';

const ULID_PATTERN = /^[0-9A-HJKMNP-TV-Z]{26}$/;

export function newId(): string {
  return ulid();
}

export function isUlid(value: unknown): value is string {
  return typeof value === 'string' && ULID_PATTERN.test(value);
}
