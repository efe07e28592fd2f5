import { ApiProperty } from '@nestjs/swagger';
import { WEBHOOK_EVENT_TYPES, WebhookEventType } from '../webhook-events.model';
import { WEBHOOK_DELIVERY_STATES, WebhookDeliveryState } from '../webhook-deliveries.repository';

const ISO_INSTANT = 'ISO 8601 instant in UTC with milliseconds';

const ATTEMPT_ERROR_PATTERN = '^(HTTP [0-9]{3}|target refused|connection failed|timeout)$';
const ATTEMPT_ERROR_DESCRIPTION =
  'Why the attempt failed: HTTP <status> (an answer other than 2xx), target refused (the URL or the addresses ' +
  'its host resolves to are not allowed targets: nothing was sent), connection failed (no answer: the name did ' +
  'not resolve, the connection was refused or reset, TLS failed) or timeout (no status within WEBHOOK_TIMEOUT_MS). ' +
  'Never an address or a resolver answer. null when delivered';

/** One attempt of a delivery, from the delivery log. */
export class WebhookDeliveryAttemptDto {
  @ApiProperty({ type: 'integer', minimum: 1, example: 1 })
  attempt!: number;

  @ApiProperty({ example: '2026-11-25T12:00:01.234Z', description: ISO_INSTANT })
  at!: string;

  @ApiProperty({
    type: 'integer',
    nullable: true,
    example: 503,
    description: 'null when no response came',
  })
  statusCode!: number | null;

  @ApiProperty({ type: 'integer', example: 87 })
  latencyMs!: number;

  @ApiProperty({
    type: String,
    nullable: true,
    example: 'HTTP 503',
    pattern: ATTEMPT_ERROR_PATTERN,
    description: ATTEMPT_ERROR_DESCRIPTION,
  })
  error!: string | null;
}

/** One event for this subscription, with its attempts. */
export class WebhookDeliveryDto {
  @ApiProperty({ example: '42', description: 'Delivery id (the path parameter of redeliver)' })
  id!: string;

  @ApiProperty({ format: 'uuid' })
  eventId!: string;

  @ApiProperty({ enum: WEBHOOK_EVENT_TYPES })
  eventType!: WebhookEventType;

  @ApiProperty({ example: 'RCARDB25112026000001' })
  requestId!: string;

  @ApiProperty({ type: 'integer', example: 1 })
  sequence!: number;

  @ApiProperty({
    enum: WEBHOOK_DELIVERY_STATES,
    description:
      'PENDING: on its way (or waiting for an earlier event of its request); DELIVERED: a 2xx came back; ' +
      'DEAD: WEBHOOK_MAX_ATTEMPTS attempts failed, redeliver it to try again',
  })
  state!: WebhookDeliveryState;

  @ApiProperty({ type: 'integer', example: 1 })
  attempts!: number;

  @ApiProperty({ type: String, nullable: true, description: `${ISO_INSTANT}; null unless PENDING` })
  nextAttemptAt!: string | null;

  @ApiProperty({ type: String, nullable: true, description: ISO_INSTANT })
  lastAttemptAt!: string | null;

  @ApiProperty({ type: 'integer', nullable: true })
  lastStatusCode!: number | null;

  @ApiProperty({ type: 'integer', nullable: true })
  lastLatencyMs!: number | null;

  @ApiProperty({
    type: String,
    nullable: true,
    example: 'connection failed',
    pattern: ATTEMPT_ERROR_PATTERN,
    description: `Of the last attempt. ${ATTEMPT_ERROR_DESCRIPTION}`,
  })
  lastError!: string | null;

  @ApiProperty({ description: ISO_INSTANT })
  createdAt!: string;

  @ApiProperty({
    type: String,
    nullable: true,
    description: `${ISO_INSTANT}; null until DELIVERED`,
  })
  deliveredAt!: string | null;

  @ApiProperty({ type: [WebhookDeliveryAttemptDto], description: 'Oldest first' })
  attemptLog!: WebhookDeliveryAttemptDto[];
}
