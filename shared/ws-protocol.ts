import { z } from 'zod';
import { BridgeErrorSchema, SubscriptionSchema } from './contract';
import { StreamEventSchema } from './events';

/**
 * Messages on the WebSocket of `agents serve` (path `/ws?token=...`). A call carries a contract
 * channel and its request; the reply carries the same id. Events arrive for each subscription.
 */
export const MAX_MESSAGE_BYTES = 1_048_576;

export const ClientMessageSchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('call'), id: z.number().int().nonnegative(), channel: z.string().max(64), request: z.unknown() }).strict(),
  z.object({ type: z.literal('subscribe'), id: z.number().int().nonnegative(), subscription: SubscriptionSchema }).strict(),
  z.object({ type: z.literal('unsubscribe'), id: z.number().int().nonnegative() }).strict(),
]);
export type ClientMessage = z.infer<typeof ClientMessageSchema>;

export const ServerMessageSchema = z.union([
  z.object({ type: z.literal('reply'), id: z.number().int().nonnegative().nullable(), ok: z.literal(true), data: z.unknown() }),
  z.object({ type: z.literal('reply'), id: z.number().int().nonnegative().nullable(), ok: z.literal(false), error: BridgeErrorSchema }),
  z.object({ type: z.literal('event'), subscriptionId: z.number().int().nonnegative(), event: StreamEventSchema }),
]);
export type ServerMessage = z.infer<typeof ServerMessageSchema>;
