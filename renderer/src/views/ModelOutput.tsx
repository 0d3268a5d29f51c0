import { useEffect, useMemo, useRef } from 'react';
import type { Plan } from '../../../shared/domain';
import { useAppStore } from '../store/react';

interface Block {
  key: string;
  title: string;
  text: string;
}

/** The model's streamed text, one block per phase or step, newest at the bottom; nothing for a scripted plan. */
export function ModelOutput({ plan }: { plan: Plan }) {
  // Only an agent plan reads its log for the text: a scripted one's events never rebuild it.
  return plan.agent || plan.acp ? <ModelText /> : null;
}

function ModelText() {
  const events = useAppStore((s) => s.events);
  const decisions = useAppStore((s) => s.decisions);
  const end = useRef<HTMLDivElement>(null);
  const blocks = useMemo(() => {
    const out: Block[] = [];
    for (const event of events) {
      if (event.type !== 'model_output' || typeof event.data.text !== 'string') continue;
      const decisionId = typeof event.data.decisionId === 'string' ? event.data.decisionId : null;
      const key = decisionId ?? 'strategize';
      const last = out.at(-1);
      if (last?.key === key) last.text += event.data.text;
      else out.push({ key, title: decisionId ? (decisions[decisionId]?.description ?? 'Step') : 'Strategize', text: event.data.text });
    }
    return out;
  }, [events, decisions]);
  // A block body: newer Chromium returns a promise from scrollIntoView, which React would take for a cleanup.
  useEffect(() => {
    end.current?.scrollIntoView?.({ block: 'nearest' });
  }, [blocks]);

  return (
    <section className="model-output" aria-labelledby="model-output-title">
      <h3 id="model-output-title">Model output</h3>
      <div className="model-output-log" role="log" aria-live="polite" aria-label="Model output">
        {blocks.length === 0 && <p className="muted">The model's text appears here as it streams.</p>}
        {blocks.map((block, i) => (
          <div key={`${block.key}-${i}`} className="model-output-block">
            <h4>{block.title}</h4>
            <p>{block.text}</p>
          </div>
        ))}
        <div ref={end} />
      </div>
    </section>
  );
}
