// Credentials kept out of what is shown or logged: git URLs, database URLs, and the messages that quote them.

/** `url` without its password or token (`https://user:secret@host/r` is `https://user@host/r`). */
export function redactUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password === '') return url;
    parsed.password = '';
    return parsed.toString();
  } catch {
    return url;
  }
}

/** Every URL-with-credentials in `text` (git's own messages, a database URL) redacted. */
export function redactText(text: string): string {
  return text.replace(/([a-z][a-z0-9+.-]*:\/\/[^\s/:@]*):[^\s/@]*@/gi, '$1:***@');
}
