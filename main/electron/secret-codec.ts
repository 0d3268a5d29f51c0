import type { SafeStorage } from 'electron';
import type { SecretCodec } from '../app/settings';

/**
 * The API key at rest, encrypted with the OS keychain through Electron's safeStorage. Null where
 * no encryption is available (Linux without a keyring): the settings file, mode 0600, then holds it.
 */
export function safeStorageCodec(safeStorage: Pick<SafeStorage, 'isEncryptionAvailable' | 'encryptString' | 'decryptString'>): SecretCodec | null {
  if (!safeStorage.isEncryptionAvailable()) return null;
  return {
    encrypt: (plain) => safeStorage.encryptString(plain).toString('base64'),
    decrypt: (stored) => safeStorage.decryptString(Buffer.from(stored, 'base64')),
  };
}
