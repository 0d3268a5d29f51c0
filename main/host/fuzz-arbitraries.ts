import fc from 'fast-check';
import { CHANNELS } from '../../shared/contract';

/**
 * Requests the router must refuse, every one of them: built to be invalid, from many angles.
 * Random values that happen to be valid would prove nothing about error handling, so none is.
 */
const channel = fc.constantFrom(...CHANNELS);
// Not a Date, Map or boxed value: zod takes any non-array object as `{}`, which is a valid request for some channels.
const notAnObject = fc.oneof(
  fc.constant(undefined),
  fc.constant(null),
  fc.boolean(),
  fc.double(),
  fc.integer(),
  fc.bigInt(),
  fc.string(),
  fc.array(fc.anything(), { maxLength: 5 }),
);
const junkValue = fc.oneof(fc.anything({ maxDepth: 2, withNullPrototype: true, withMap: true, withSet: true, withBoxedValues: true, withTypedArray: true, withSparseArray: true }), notAnObject);
/** A key no request schema has; strict schemas refuse it. */
const strayKey = fc.string({ minLength: 1, maxLength: 12 }).map((s) => `x_${s}`);
const badPlanId = fc.oneof(
  fc.constant(''),
  fc.string({ minLength: 65, maxLength: 80 }),
  fc.integer(),
  fc.constant(null),
  fc.array(fc.string(), { maxLength: 2 }),
  fc.object({ maxDepth: 1 }),
);
/** Well-formed ids of plans that do not exist: they pass the schema and fail at the engine. */
const missingPlanId = fc.stringMatching(/^[0-9A-HJKMNP-TV-Z]{26}$/).map((id) => `Z${id.slice(1)}`);

export const invalidCall = fc.oneof(
  // A channel that is not in the contract, or not a string at all.
  fc.record({ channel: fc.oneof(fc.string({ maxLength: 70 }), junkValue).filter((c) => !(CHANNELS as unknown[]).includes(c)), request: junkValue }),
  // A request that is not an object.
  fc.record({ channel, request: notAnObject }),
  // An object with a key nobody asked for, beside random fields.
  fc.record({
    channel,
    request: fc.tuple(fc.dictionary(fc.string({ maxLength: 10 }), junkValue, { maxKeys: 4 }), strayKey, junkValue).map(([fields, key, value]) => ({ ...fields, [key]: value })),
  }),
  // A plan id of the wrong type or length.
  fc.record({ channel: channel.filter((c) => c.startsWith('plans.') && c !== 'plans.list' && c !== 'plans.create'), request: badPlanId.map((planId) => ({ planId })) }),
  // A plan id that looks right and names no plan.
  fc.record({
    channel: fc.constantFrom(...CHANNELS.filter((c) => c.startsWith('plans.') && !['plans.list', 'plans.create', 'plans.change', 'plans.breakpoint'].includes(c))),
    request: missingPlanId.map((planId) => ({ planId })),
  }),
  // plans.create with plan text that is wrong in some way.
  fc.record({
    channel: fc.constant('plans.create'),
    request: fc.oneof(
      fc.string({ minLength: 1, maxLength: 200 }).map((content) => ({ content: `definitionOfDone: 5\n${content}` })),
      fc.string({ minLength: 1, maxLength: 200 }).map((content) => ({ content: `[${content}` })),
      fc.jsonValue({ maxDepth: 3 }).map((value) => ({ content: JSON.stringify({ name: 'fuzz', definitionOfDone: [], extra: value }) })),
      fc.record({ path: fc.string({ minLength: 1, maxLength: 50 }), content: fc.string({ minLength: 1, maxLength: 50 }) }),
      fc.constant({}),
    ),
  }),
);
