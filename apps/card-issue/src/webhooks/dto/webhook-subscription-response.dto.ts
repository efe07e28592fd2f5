import { ApiProperty } from '@nestjs/swagger';
import { WEBHOOK_EVENT_TYPES, WebhookEventType } from '../webhook-events.model';

const ISO_INSTANT = 'ISO 8601 instant in UTC with milliseconds';

/** A subscription as GET, list and PATCH show it: never its secret. */
export class WebhookSubscriptionDto {
  @ApiProperty({ format: 'uuid', example: '0b6f3a57-3f53-4a53-9d0e-0e1c2f6a9b11' })
  id!: string;

  @ApiProperty({ example: 'https://receiver.example.com/card-issue-events' })
  url!: string;

  @ApiProperty({ enum: WEBHOOK_EVENT_TYPES, isArray: true, example: ['card_issue.status_changed'] })
  eventTypes!: WebhookEventType[];

  @ApiProperty({ type: String, nullable: true, example: 'Partner portal' })
  description!: string | null;

  @ApiProperty({
    description:
      'false: no event is written for it. The service sets it to false itself when autoDisabledAt is set',
  })
  enabled!: boolean;

  @ApiProperty({
    type: 'integer',
    minimum: 0,
    example: 0,
    description:
      'Failed attempts in a row to its URL (non-2xx, timeout, connection failed, target refused); 0 once one succeeds',
  })
  consecutiveFailures!: number;

  @ApiProperty({
    type: String,
    nullable: true,
    example: null,
    description:
      `${ISO_INSTANT}: when the current run of failed attempts began (no attempt has succeeded since); ` +
      'null when its latest attempt succeeded or none was made',
  })
  failingSince!: string | null;

  @ApiProperty({
    type: String,
    nullable: true,
    example: null,
    description:
      `${ISO_INSTANT}: when the service disabled it because its attempts had all failed for ` +
      'WEBHOOK_AUTO_DISABLE_HOURS (default 24). Its deliveries wait, and no event is written for it, ' +
      'until PATCH sets enabled to true, which clears this and its run of failures. null: not disabled by the service',
  })
  autoDisabledAt!: string | null;

  @ApiProperty({ example: '2026-11-25T12:00:00.000Z', description: ISO_INSTANT })
  createdAt!: string;

  @ApiProperty({ example: '2026-11-25T12:00:00.000Z', description: ISO_INSTANT })
  updatedAt!: string;
}

const SECRET_DESCRIPTION =
  'The signing secret, shown this once (never by GET or the list): a Standard Webhooks secret, whsec_ + base64 ' +
  'of 32 random bytes. Give it as it is to a Standard Webhooks library; the HMAC-SHA256 key is the ' +
  'base64-decoded part after whsec_ (docs/webhooks.md "Signatures").';

/** The answer of POST: the subscription with its secret, the only time it is shown. */
export class CreatedWebhookSubscriptionDto extends WebhookSubscriptionDto {
  @ApiProperty({
    example: 'whsec_q2Vx1dXq0bKk8f3cQ5Qm2m3d3VwT0jv1c7wE0bW9m0k=',
    description: SECRET_DESCRIPTION,
  })
  secret!: string;
}

export class RotatedWebhookSecretDto {
  @ApiProperty({
    example: 'whsec_Zb0aJm1c3n4QpX8gkzT9vW2yR6uH5sD7fL1eO0iK3qA=',
    description: SECRET_DESCRIPTION,
  })
  secret!: string;

  @ApiProperty({
    example: '2026-11-26T12:00:00.000Z',
    description:
      `${ISO_INSTANT}. Until then every delivery carries a second v1 signature made with the replaced ` +
      'secret (WEBHOOK_SECRET_OVERLAP_HOURS after the rotation; a further rotation ends it)',
  })
  previousSecretExpiresAt!: string;
}
