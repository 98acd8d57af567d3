import type { Webhook } from 'standardwebhooks';
import { CURRENT_API_VERSION } from '../../http/api-version.ts';

// The body and headers of one delivery (design §5). The envelope's `id` is the event's
// id, so every attempt repeats it and receivers process each event once (interface §6
// rule 3). `created_at` is when the event happened (business time); `webhook-timestamp`
// is when this attempt was signed (real time, which receivers check against their clock).

export type EnvelopeEvent = { id: string; type: string; createdAt: Date /** The event's `data` as JSON text. */; dataJson: string };

export function envelopeJson(event: EnvelopeEvent): string {
  return `{"id":${JSON.stringify(event.id)},"type":${JSON.stringify(event.type)},"created_at":${JSON.stringify(event.createdAt.toISOString())},"api_version":${JSON.stringify(CURRENT_API_VERSION)},"data":${event.dataJson}}`;
}

export function signedHeaders(signer: Webhook, eventId: string, body: string, signedAt: Date): Record<string, string> {
  return {
    'content-type': 'application/json',
    'user-agent': 'Kontor-Webhooks/1',
    'webhook-id': eventId,
    'webhook-timestamp': String(Math.floor(signedAt.getTime() / 1000)),
    'webhook-signature': signer.sign(eventId, signedAt, body),
  };
}
