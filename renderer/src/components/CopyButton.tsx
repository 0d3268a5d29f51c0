import { useState } from 'react';
import { useAppStore } from '../store/react';

async function copyText(text: string): Promise<boolean> {
  try {
    await navigator.clipboard.writeText(text);
    return true;
  } catch {
    return false;
  }
}

export function CopyButton({ text, label, testId, copied: copiedMessage = 'Command copied' }: { text: string; label: string; testId?: string; copied?: string }) {
  const announce = useAppStore((s) => s.announce);
  const [copied, setCopied] = useState<'idle' | 'copied' | 'failed'>('idle');
  const onClick = async () => {
    const ok = await copyText(text);
    setCopied(ok ? 'copied' : 'failed');
    announce(ok ? copiedMessage : 'Could not copy; select the command and copy it by hand');
    window.setTimeout(() => setCopied('idle'), 2000);
  };
  return (
    <button type="button" className="button small" aria-description={label} data-testid={testId} data-copied={copied} onClick={() => void onClick()}>
      {copied === 'copied' ? 'Copied' : copied === 'failed' ? 'Copy failed' : 'Copy'}
    </button>
  );
}
