import { useMemo, useState, type FormEvent } from 'react';
import { checkedAnswer, type Elicitation, type QuestionField, questionFields, valueFromText } from '../../../shared/elicitation';

/** What each field holds while the operator fills it: text, a tick, or the ticked choices. */
type Values = Record<string, string | boolean | string[]>;

const INPUT_TYPES: Record<string, string> = { email: 'email', uri: 'url', date: 'date' };

function initialValues(fields: readonly QuestionField[]): Values {
  const values: Values = {};
  for (const field of fields) {
    if (field.kind === 'boolean') values[field.key] = field.default === true;
    else if (field.kind === 'choices') values[field.key] = Array.isArray(field.default) ? field.default.map(String) : [];
    else values[field.key] = field.default === undefined ? '' : String(field.default);
  }
  return values;
}

/** The form's values as the answer: empty text is left out (its default, or nothing). */
function answerOf(fields: readonly QuestionField[], values: Values): Record<string, unknown> {
  const input: Record<string, unknown> = {};
  for (const field of fields) {
    const value = values[field.key];
    const given = typeof value === 'string' ? valueFromText(field, value) : value;
    if (given !== undefined && !(Array.isArray(given) && given.length === 0 && field.default === undefined && !field.required)) input[field.key] = given;
  }
  return input;
}

function FieldInput({ field, value, disabled, onChange }: { field: QuestionField; value: string | boolean | string[]; disabled: boolean; onChange: (value: string | boolean | string[]) => void }) {
  const id = `elicit-${field.key}`;
  const hint = field.description ? `${id}-hint` : undefined;
  const label = `${field.label}${field.required ? ' (required)' : ''}`;
  const described = { 'aria-describedby': hint };
  let control;
  if (field.kind === 'boolean') {
    control = <input id={id} type="checkbox" checked={value === true} disabled={disabled} {...described} onChange={(e) => onChange(e.currentTarget.checked)} />;
  } else if (field.kind === 'choices') {
    const ticked = Array.isArray(value) ? value : [];
    return (
      <fieldset className="elicit-field" aria-describedby={hint}>
        <legend>{label}</legend>
        {field.options.map((option) => (
          <label key={option.value} className="elicit-choice">
            <input type="checkbox" checked={ticked.includes(option.value)} disabled={disabled} onChange={(e) => onChange(e.currentTarget.checked ? [...ticked, option.value] : ticked.filter((v) => v !== option.value))} /> {option.label}
          </label>
        ))}
        {hint && <span className="muted elicit-hint" id={hint}>{field.description}</span>}
      </fieldset>
    );
  } else if (field.kind === 'choice') {
    control = (
      <select id={id} className="input" value={String(value)} disabled={disabled} required={field.required} {...described} onChange={(e) => onChange(e.currentTarget.value)}>
        {(!field.required || field.default === undefined) && <option value="">—</option>}
        {field.options.map((option) => (
          <option key={option.value} value={option.value}>
            {option.label}
          </option>
        ))}
      </select>
    );
  } else {
    const numeric = field.kind === 'number' || field.kind === 'integer';
    control = (
      <input
        id={id}
        className="input"
        type={numeric ? 'number' : (INPUT_TYPES[field.format ?? ''] ?? 'text')}
        value={String(value)}
        min={numeric ? (field.minimum ?? undefined) : undefined}
        max={numeric ? (field.maximum ?? undefined) : undefined}
        step={field.kind === 'integer' ? 1 : numeric ? 'any' : undefined}
        minLength={field.minLength ?? undefined}
        maxLength={field.maxLength ?? undefined}
        required={field.required && field.default === undefined}
        disabled={disabled}
        {...described}
        onChange={(e) => onChange(e.currentTarget.value)}
      />
    );
  }
  return (
    <div className="elicit-field">
      <label htmlFor={id}>{label}</label>
      {control}
      {hint && (
        <span className="muted elicit-hint" id={hint}>
          {field.description}
        </span>
      )}
    </div>
  );
}

/**
 * An MCP server's question as a form in the approval card: a field per property of its schema
 * (text, numbers, a tick, choices as selects), defaults filled in. Accept sends the answer, checked
 * against the question first; declining is the card's reject, with a reason.
 */
export function ElicitationForm({ question, busy, disabled, onAccept }: { question: Elicitation; busy: boolean; disabled: boolean; onAccept: (input: Record<string, unknown>) => void }) {
  // Keyed by the approval in the card: a refresh of the same question keeps what the operator typed.
  const fields = useMemo(() => questionFields(question.requestedSchema), [question]);
  const [values, setValues] = useState<Values>(() => initialValues(fields));
  const [problem, setProblem] = useState<string | null>(null);

  const onSubmit = (event: FormEvent) => {
    event.preventDefault();
    const input = answerOf(fields, values);
    const checked = checkedAnswer(question.requestedSchema, input);
    if ('problem' in checked) return setProblem(checked.problem);
    setProblem(null);
    onAccept(input);
  };

  return (
    <form className="elicit-form" aria-label={`Answer to ${question.server}`} onSubmit={onSubmit} noValidate>
      <p className="elicit-message">
        <span className="approval-label">The MCP server {question.server} asks</span>
        {question.message}
      </p>
      {fields.map((field) => (
        <FieldInput key={field.key} field={field} value={values[field.key] ?? ''} disabled={busy} onChange={(value) => setValues((now) => ({ ...now, [field.key]: value }))} />
      ))}
      {problem && (
        <p className="inline-error" role="alert">
          {problem}
        </p>
      )}
      <button type="submit" className="button primary" disabled={busy || disabled} aria-busy={busy || undefined} title="Send this answer to the server and go on">
        Accept
      </button>
    </form>
  );
}
