import type { CallbacksObject } from '@nestjs/swagger/dist/interfaces/open-api-spec.interface';
import { getSchemaPath } from '@nestjs/swagger';
import { RESPONSE_PREFIX_LENGTH } from '../webhook-sender';
import { WebhookEventDto } from './webhook-event.dto';

/** The callback's name in the document (`callbacks.cardIssueEvent` of the subscription POST). */
export const CARD_ISSUE_EVENT_CALLBACK = 'cardIssueEvent';

/**
 * The events as an OpenAPI callback of the subscription POST: what the service POSTs to the
 * subscription's URL, with the Standard Webhooks headers that sign it, and which answers count
 * as delivered (WebhookSender: a 2xx status within the attempt's deadline) and which as a failed
 * attempt (everything else). Written out here because @nestjs/swagger's ApiCallbacks has
 * neither parameters nor more than one response.
 */
export function cardIssueEventCallbacks(): CallbacksObject {
  return {
    [CARD_ISSUE_EVENT_CALLBACK]: {
      '{$request.body#/url}': {
        post: {
          summary: 'A card issue event, POSTed to the subscription URL',
          description:
            'Signed the Standard Webhooks way (https://www.standardwebhooks.com): verify with a Standard Webhooks ' +
            'library (e.g. the standardwebhooks npm package) given the whsec_ secret, over the raw body. ' +
            'At least once, in sequence order per request; deduplicate by webhook-id (docs/webhooks.md).',
          parameters: [
            {
              name: 'webhook-id',
              in: 'header',
              required: true,
              description:
                'The event id (the body’s id): the same on every attempt of the event and in every subscription’s ' +
                'delivery of it. Deduplicate by it. Signed.',
              schema: { type: 'string', format: 'uuid' },
              example: '5b0f9a52-8d7e-4f0e-9a43-4c2b1f7e0c11',
            },
            {
              name: 'webhook-timestamp',
              in: 'header',
              required: true,
              description:
                'Unix seconds of this attempt (every attempt is signed anew). Signed; reject a delivery more than ' +
                '5 minutes from your clock (a replay).',
              schema: { type: 'integer', minimum: 0 },
              example: 1795500000,
            },
            {
              name: 'webhook-signature',
              in: 'header',
              required: true,
              description:
                'Space-separated v1,<signature>: the base64 HMAC-SHA256 of "<webhook-id>.<webhook-timestamp>.<raw body>" ' +
                'keyed with the base64-decoded part of the secret after whsec_. One per valid secret: during a ' +
                'rotation overlap two, the new secret’s first. One match verifies; ignore versions other than v1.',
              schema: {
                type: 'string',
                pattern: '^v1,[A-Za-z0-9+/]{43}=( v1,[A-Za-z0-9+/]{43}=)*$',
              },
              example: 'v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=',
            },
            {
              name: 'X-Request-Id',
              in: 'header',
              required: false,
              description:
                'The request id of the API call that made the change; absent for the scheduler’s moves. Not signed.',
              schema: { type: 'string' },
            },
            {
              name: 'traceparent',
              in: 'header',
              required: false,
              description:
                'W3C trace context continuing the change’s trace, when there is one. Not signed.',
              schema: { type: 'string' },
            },
          ],
          requestBody: {
            required: true,
            description:
              'The event; byte-identical on every attempt. Verify these raw bytes, not re-serialised JSON.',
            content: {
              'application/json': { schema: { $ref: getSchemaPath(WebhookEventDto) } },
            },
          },
          responses: {
            '2XX': {
              description:
                'Delivered: any status from 200 to 299, received within WEBHOOK_TIMEOUT_MS (default 5 s) of the ' +
                'attempt’s start, connecting included. The body is not needed (its first ' +
                `${RESPONSE_PREFIX_LENGTH} characters are kept in the delivery log). Answer first, work after.`,
            },
            default: {
              description:
                'A failed attempt: any other status (a 3xx included: redirects are not followed; 4xx; 5xx), or no ' +
                'status within WEBHOOK_TIMEOUT_MS (a timeout, a refused or reset connection, a target address the ' +
                'rules refuse). Retried after a full-jitter backoff; after WEBHOOK_MAX_ATTEMPTS (default 15) the ' +
                'delivery is DEAD and the later events of its request wait until it is redelivered.',
            },
          },
        },
      },
    },
  };
}
