// A server's question to the operator (MCP `elicitation/create`, form mode): what it asks, the
// fields its schema may have (MCP allows only flat primitives: strings, numbers, integers,
// booleans, single and multiple choices), and the checks an answer passes before it is sent.
import { z } from 'zod';

/** The requested schema as the server sent it; read field by field with `questionFields`. */
export const RequestedSchemaSchema = z.looseObject({
  type: z.literal('object').optional(),
  properties: z.record(z.string(), z.record(z.string(), z.unknown())).default({}),
  required: z.array(z.string()).optional(),
});
export type RequestedSchema = z.infer<typeof RequestedSchemaSchema>;

/** What an approval of kind `input` carries: which server asks, its message, and the schema of the answer. */
export const ElicitationSchema = z.object({
  server: z.string(),
  message: z.string(),
  requestedSchema: RequestedSchemaSchema,
});
export type Elicitation = z.infer<typeof ElicitationSchema>;

/** How long a server's question waits for the operator, unless its server's `questionTimeoutMs` says otherwise. */
export const DEFAULT_QUESTION_TIMEOUT_MS = 30 * 60_000;

/** The protocol's three answers: accept (with the content), decline, cancel. */
export type ElicitationAction = 'accept' | 'decline' | 'cancel';
export type ElicitationContent = Record<string, string | number | boolean | string[]>;
export interface ElicitationAnswer {
  action: ElicitationAction;
  content?: ElicitationContent;
}

export interface FieldOption {
  value: string;
  label: string;
}

/** One field of the question, as a form or a terminal asks it. */
export interface QuestionField {
  key: string;
  label: string;
  description: string | null;
  kind: 'string' | 'number' | 'integer' | 'boolean' | 'choice' | 'choices';
  required: boolean;
  default?: unknown;
  /** For `choice` and `choices`: the values and their titles. */
  options: FieldOption[];
  /** A string's `format` (email, uri, date, date-time), if any. */
  format: string | null;
  minimum: number | null;
  maximum: number | null;
  minLength: number | null;
  maxLength: number | null;
}

const num = (value: unknown): number | null => (typeof value === 'number' && Number.isFinite(value) ? value : null);

function optionsOf(property: Record<string, unknown>): FieldOption[] | null {
  const titled = (list: unknown) =>
    Array.isArray(list) ? list.filter((o): o is { const: unknown; title?: unknown } => typeof o === 'object' && o !== null && 'const' in o).map((o) => ({ value: String(o.const), label: typeof o.title === 'string' ? o.title : String(o.const) })) : null;
  if (Array.isArray(property.enum)) {
    const names = Array.isArray(property.enumNames) ? property.enumNames : [];
    return property.enum.map((value, i) => ({ value: String(value), label: typeof names[i] === 'string' ? names[i] : String(value) }));
  }
  return titled(property.oneOf) ?? titled(property.anyOf);
}

/** The question's fields in the server's order; a field of a type MCP does not allow is read as text. */
export function questionFields(schema: RequestedSchema): QuestionField[] {
  const required = new Set(schema.required ?? []);
  return Object.entries(schema.properties).map(([key, property]) => {
    const items = typeof property.items === 'object' && property.items !== null ? (property.items as Record<string, unknown>) : null;
    const single = optionsOf(property);
    const multi = property.type === 'array' && items ? optionsOf(items) : null;
    const type = property.type;
    const kind: QuestionField['kind'] = multi ? 'choices' : single ? 'choice' : type === 'number' || type === 'integer' || type === 'boolean' ? type : 'string';
    return {
      key,
      label: typeof property.title === 'string' && property.title ? property.title : key,
      description: typeof property.description === 'string' ? property.description : null,
      kind,
      required: required.has(key),
      ...(property.default !== undefined ? { default: property.default } : {}),
      options: multi ?? single ?? [],
      format: typeof property.format === 'string' ? property.format : null,
      minimum: num(property.minimum) ?? num(property.minItems),
      maximum: num(property.maximum) ?? num(property.maxItems),
      minLength: num(property.minLength),
      maxLength: num(property.maxLength),
    };
  });
}

const FORMATS: Record<string, RegExp> = {
  email: /^[^\s@]+@[^\s@]+\.[^\s@]+$/,
  uri: /^[a-z][a-z0-9+.-]*:\S+$/i,
  date: /^\d{4}-\d{2}-\d{2}$/,
  'date-time': /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})$/,
};

const FORMAT_NAMES: Record<string, string> = { email: 'an email address', uri: 'a URI', date: 'a date (YYYY-MM-DD)', 'date-time': 'a date and time (ISO 8601)' };

/** Why one value does not fit its field; null when it does. */
export function fieldProblem(field: QuestionField, value: unknown): string | null {
  const what = `"${field.key}"`;
  const range = (n: number, unit: string) =>
    (field.minimum !== null && n < field.minimum) || (field.maximum !== null && n > field.maximum) ? `${what} must be ${unit} ${field.minimum ?? '…'} to ${field.maximum ?? '…'}` : null;
  switch (field.kind) {
    case 'boolean':
      return typeof value === 'boolean' ? null : `${what} must be true or false`;
    case 'number':
    case 'integer':
      if (typeof value !== 'number' || !Number.isFinite(value)) return `${what} must be a number`;
      if (field.kind === 'integer' && !Number.isInteger(value)) return `${what} must be a whole number`;
      return range(value, 'from');
    case 'choice':
      return typeof value === 'string' && field.options.some((o) => o.value === value) ? null : `${what} must be one of ${field.options.map((o) => o.value).join(', ')}`;
    case 'choices':
      if (!Array.isArray(value) || !value.every((v) => typeof v === 'string' && field.options.some((o) => o.value === v))) return `${what} must be a list of ${field.options.map((o) => o.value).join(', ')}`;
      return range(value.length, 'a list of');
    default:
      if (typeof value !== 'string') return `${what} must be text`;
      if ((field.minLength !== null && value.length < field.minLength) || (field.maxLength !== null && value.length > field.maxLength)) return `${what} must be ${field.minLength ?? 0} to ${field.maxLength ?? '…'} characters`;
      return field.format && FORMATS[field.format] && !FORMATS[field.format].test(value) ? `${what} must be ${FORMAT_NAMES[field.format]}` : null;
  }
}

/**
 * The operator's answer checked against the question: every value fits its field, nothing the
 * schema does not name, and every required field given; a field left out takes its default
 * (SEP-1034). Returns the content to send, or the first problem as one line.
 */
export function checkedAnswer(schema: RequestedSchema, input: Record<string, unknown>): { content: ElicitationContent } | { problem: string } {
  const fields = questionFields(schema);
  const unknown = Object.keys(input).find((key) => !fields.some((f) => f.key === key));
  if (unknown !== undefined) return { problem: `"${unknown}" is not asked for; the fields are ${fields.map((f) => f.key).join(', ') || 'none'}` };
  const content: ElicitationContent = {};
  for (const field of fields) {
    const value = input[field.key] ?? field.default;
    if (value === undefined || value === null) {
      if (field.required) return { problem: `"${field.key}" is required (${field.label})` };
      continue;
    }
    const problem = fieldProblem(field, value);
    if (problem) return { problem };
    content[field.key] = value as ElicitationContent[string];
  }
  return { content };
}

/**
 * A typed answer for one field (a terminal's line, a form's text box): numbers and booleans read
 * from text; a list of choices split at commas. Empty text is undefined (the default, or nothing).
 */
export function valueFromText(field: QuestionField, text: string): unknown {
  const trimmed = text.trim();
  if (trimmed === '') return undefined;
  if (field.kind === 'number' || field.kind === 'integer') return Number(trimmed);
  if (field.kind === 'boolean') return /^(y|yes|true|1|on)$/i.test(trimmed) ? true : /^(n|no|false|0|off)$/i.test(trimmed) ? false : trimmed;
  if (field.kind === 'choices') return trimmed.split(',').map((v) => v.trim()).filter(Boolean);
  return trimmed;
}

/** The protocol's answer for an answered approval of kind `input`: approved accepts with its content, rejected declines; `cancelled` (the operator's cancel, or its time limit) cancels. */
export function answerOf(status: 'approved' | 'rejected', content: Record<string, unknown>, cancelled = false): ElicitationAnswer {
  if (cancelled) return { action: 'cancel' };
  return status === 'approved' ? { action: 'accept', content: content as ElicitationContent } : { action: 'decline' };
}
