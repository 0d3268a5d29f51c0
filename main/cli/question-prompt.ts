// An MCP server's question at the command line: shown with its fields, and asked field by field
// on a terminal (`plan run`, `mcp call`).
import { type Elicitation, fieldProblem, type QuestionField, questionFields, type RequestedSchema, valueFromText } from '../../shared/elicitation';

/** What a field takes, as its prompt and the question's listing say it: `integer, 1 to 100, default 42`. */
function fieldHint(field: QuestionField): string {
  const kind = field.kind === 'choice' ? `one of ${field.options.map((o) => o.value).join(', ')}` : field.kind === 'choices' ? `any of ${field.options.map((o) => o.value).join(', ')} (comma-separated)` : field.kind === 'boolean' ? 'yes or no' : field.format ? `${field.kind} (${field.format})` : field.kind;
  const range = field.minimum !== null || field.maximum !== null ? `, ${field.minimum ?? '…'} to ${field.maximum ?? '…'}` : '';
  const fallback = field.default !== undefined ? `, default ${Array.isArray(field.default) ? field.default.join(',') : String(field.default)}` : field.required ? ', required' : '';
  return `${kind}${range}${fallback}`;
}

/** The question as lines: who asks, what, and each field with what it takes. */
export function questionLines(question: Elicitation): string[] {
  return [
    `the MCP server "${question.server}" asks: ${question.message}`,
    ...questionFields(question.requestedSchema).map((f) => `  ${f.key}${f.label !== f.key ? ` (${f.label})` : ''}: ${fieldHint(f)}${f.description ? ` — ${f.description}` : ''}`),
  ];
}

/**
 * Asks each field on its own line: empty takes the default (or leaves an optional field out), a
 * value that does not fit is asked again with why. Null when the input ends (Ctrl-D): nothing answered.
 */
export async function askFields(schema: RequestedSchema, ask: (question: string) => Promise<string | null>, say: (text: string) => void): Promise<Record<string, unknown> | null> {
  const content: Record<string, unknown> = {};
  for (const field of questionFields(schema)) {
    for (;;) {
      const line = await ask(`${field.label}${field.description ? ` (${field.description})` : ''} [${fieldHint(field)}]: `);
      if (line === null) return null;
      const value = valueFromText(field, line);
      if (value === undefined) {
        if (field.required && field.default === undefined) {
          say(`"${field.key}" is required\n`);
          continue;
        }
        break;
      }
      const problem = fieldProblem(field, value);
      if (problem) {
        say(`${problem}\n`);
        continue;
      }
      content[field.key] = value;
      break;
    }
  }
  return content;
}
