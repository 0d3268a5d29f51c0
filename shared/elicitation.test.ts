import { describe, expect, it } from 'vitest';
import { checkedAnswer, questionFields, RequestedSchemaSchema, valueFromText } from './elicitation';

// The shapes MCP allows in a question (a subset of JSON Schema), as the reference server sends them.
const schema = RequestedSchemaSchema.parse({
  type: 'object',
  properties: {
    name: { type: 'string', title: 'Name', minLength: 1 },
    email: { type: 'string', format: 'email' },
    age: { type: 'integer', minimum: 1, maximum: 120, default: 30 },
    agree: { type: 'boolean' },
    pet: { type: 'string', enum: ['cat', 'dog'], enumNames: ['Cats', 'Dogs'], default: 'cat' },
    hero: { type: 'string', oneOf: [{ const: 'h1', title: 'Superman' }] },
    tools: { type: 'array', minItems: 1, items: { type: 'string', enum: ['Guitar', 'Piano'] }, default: ['Guitar'] },
  },
  required: ['name'],
});

describe('a server question', () => {
  it('reads each field with its kind, label, options and default', () => {
    const fields = questionFields(schema);
    expect(fields.map((f) => [f.key, f.kind])).toEqual([['name', 'string'], ['email', 'string'], ['age', 'integer'], ['agree', 'boolean'], ['pet', 'choice'], ['hero', 'choice'], ['tools', 'choices']]);
    expect(fields[0]).toMatchObject({ label: 'Name', required: true });
    expect(fields[4].options).toEqual([{ value: 'cat', label: 'Cats' }, { value: 'dog', label: 'Dogs' }]);
    expect(fields[5].options).toEqual([{ value: 'h1', label: 'Superman' }]);
  });

  it('fills the defaults of what the answer leaves out (SEP-1034) and refuses what does not fit, one line each', () => {
    expect(checkedAnswer(schema, { name: 'Ada' })).toEqual({ content: { name: 'Ada', age: 30, pet: 'cat', tools: ['Guitar'] } });
    expect(checkedAnswer(schema, {})).toEqual({ problem: '"name" is required (Name)' });
    expect(checkedAnswer(schema, { name: 'Ada', age: 200 })).toEqual({ problem: '"age" must be from 1 to 120' });
    expect(checkedAnswer(schema, { name: 'Ada', age: 2.5 })).toEqual({ problem: '"age" must be a whole number' });
    expect(checkedAnswer(schema, { name: 'Ada', email: 'nope' })).toEqual({ problem: '"email" must be an email address' });
    expect(checkedAnswer(schema, { name: 'Ada', pet: 'fish' })).toEqual({ problem: '"pet" must be one of cat, dog' });
    expect(checkedAnswer(schema, { name: 'Ada', tools: [] })).toEqual({ problem: '"tools" must be a list of 1 to …' });
    expect(checkedAnswer(schema, { name: 'Ada', colour: 'red' })).toMatchObject({ problem: expect.stringMatching(/^"colour" is not asked for/) });
  });

  it('reads typed text as the field takes it', () => {
    const [name, , age, agree, , , tools] = questionFields(schema);
    expect(valueFromText(name, '  ')).toBeUndefined();
    expect(valueFromText(age, '42')).toBe(42);
    expect(valueFromText(agree, 'yes')).toBe(true);
    expect(valueFromText(agree, 'no')).toBe(false);
    expect(valueFromText(tools, 'Guitar, Piano')).toEqual(['Guitar', 'Piano']);
  });
});
