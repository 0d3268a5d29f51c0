import { describe, expect, it } from 'vitest';
import { isTraceViewerLink } from './otlp';

describe("the trace viewer's links the desktop app opens in the browser", () => {
  const id = '0af7651916cd43dd8448eb211c80319c';

  it('are the traceUrl template with a trace id, over http(s)', () => {
    expect(isTraceViewerLink(`http://localhost:16686/trace/${id}`, 'http://localhost:16686/trace/{traceId}')).toBe(true);
    expect(isTraceViewerLink(`https://cloud.langfuse.com/project/p1/traces/${id}?x=1`, 'https://cloud.langfuse.com/project/p1/traces/{traceId}?x=1')).toBe(true);
  });

  it('are nothing else: another address, another id, no template, or not http(s)', () => {
    const template = 'http://localhost:16686/trace/{traceId}';
    expect(isTraceViewerLink(`http://localhost:16686/trace/${id}/../../admin`, template)).toBe(false);
    expect(isTraceViewerLink('http://localhost:16686/trace/not-an-id', template)).toBe(false);
    expect(isTraceViewerLink(`http://evil.example/trace/${id}`, template)).toBe(false);
    expect(isTraceViewerLink(`http://localhost:16686/trace/${id}`, undefined)).toBe(false);
    expect(isTraceViewerLink(`file:///trace/${id}`, 'file:///trace/{traceId}')).toBe(false);
    // The template's dots are dots, not any character.
    expect(isTraceViewerLink(`http://localhostX16686/trace/${id}`, 'http://localhost.16686/trace/{traceId}')).toBe(false);
  });
});
