import { z } from 'zod';
import { BridgeErrorSchema, SubscriptionSchema } from './contract';
import { StreamEventSchema } from './events';

/**
 * Messages on the WebSocket of `agents serve` (path `/ws?token=...`). A call carries a contract
 * channel and its request; the reply carries the same id. Events arrive for each subscription.
 */
export const MAX_MESSAGE_BYTES = 1_048_576;

/** Most events in one `events` message. */
export const MAX_EVENTS_PER_MESSAGE = 256;

export const ClientMessageSchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('call'), id: z.number().int().nonnegative(), channel: z.string().max(64), request: z.unknown() }).strict(),
  z.object({ type: z.literal('subscribe'), id: z.number().int().nonnegative(), subscription: SubscriptionSchema }).strict(),
  z.object({ type: z.literal('unsubscribe'), id: z.number().int().nonnegative() }).strict(),
]);
export type ClientMessage = z.infer<typeof ClientMessageSchema>;

const ReplySchema = z.union([
  z.object({ type: z.literal('reply'), id: z.number().int().nonnegative().nullable(), ok: z.literal(true), data: z.unknown() }),
  z.object({ type: z.literal('reply'), id: z.number().int().nonnegative().nullable(), ok: z.literal(false), error: BridgeErrorSchema }),
]);
const EventMessageSchema = z.object({ type: z.literal('event'), subscriptionId: z.number().int().nonnegative(), event: StreamEventSchema });
/**
 * Several events of one subscription, in seq order. While events keep coming, the host sends them
 * in batches (at most MAX_EVENTS_PER_MESSAGE, a few milliseconds' worth), and always sends the
 * events it has before the reply to a call.
 */
const EventsMessageSchema = z.object({ type: z.literal('events'), subscriptionId: z.number().int().nonnegative(), events: z.array(StreamEventSchema).min(2) });

export const ServerMessageSchema = z.union([ReplySchema, EventMessageSchema, EventsMessageSchema]);
/** The schema for each `type` of server message: a client checks a message against its own type's only. */
export const ServerMessageSchemas = { reply: ReplySchema, event: EventMessageSchema, events: EventsMessageSchema } as const;
export type ServerMessage = z.infer<typeof ServerMessageSchema>;
