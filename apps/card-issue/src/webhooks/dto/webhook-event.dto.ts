import { ApiProperty } from '@nestjs/swagger';
import {
  CARD_ISSUE_STATUSES,
  CardIssueStatus,
  StatusSource,
} from '../../card-issues/card-issue-status.model';
import {
  WEBHOOK_EVENT_TYPES,
  WebhookEventBody,
  WebhookEventData,
  WebhookEventType,
} from '../webhook-events.model';

const STATUS_CODE_DESCRIPTION =
  'STSCI01 CREATED, 02 PROCESSING, 03 READY, 04 PLASTIC_READY, 05 FAILED';

/** What changed, in every event type. */
export class WebhookEventDataDto implements WebhookEventData {
  @ApiProperty({ example: 'RCARDB25112026000001', description: 'RCARDB + ddMMyyyy + 6 digits' })
  requestId!: string;

  @ApiProperty({
    enum: CARD_ISSUE_STATUSES,
    example: 'PROCESSING',
    description: 'The status after the change',
  })
  status!: CardIssueStatus;

  @ApiProperty({ example: 'STSCI02', description: STATUS_CODE_DESCRIPTION })
  statusCode!: string;

  @ApiProperty({
    // OpenAPI 3.0: `nullable` widens the type, not the enum, so null is listed among the values.
    enum: [...CARD_ISSUE_STATUSES, null],
    nullable: true,
    example: 'CREATED',
    description: 'The status before the change; null in the events of a creation',
  })
  previousStatus!: CardIssueStatus | null;

  @ApiProperty({
    type: String,
    nullable: true,
    example: 'STSCI01',
    description: 'null in the events of a creation',
  })
  previousStatusCode!: string | null;

  @ApiProperty({
    enum: ['api', 'scheduler'],
    example: 'api',
    description: 'api: POST or PATCH; scheduler: an automatic move',
  })
  source!: StatusSource;

  @ApiProperty({
    type: String,
    nullable: true,
    example: null,
    description: 'Why the request failed; null otherwise',
  })
  failureReason!: string | null;
}

/**
 * The body of every webhook delivery (documented for OpenAPI as the schema WebhookEventDto, since
 * the receiver's URL is the subscriber's). Byte-identical on every attempt of one event; keys
 * in this order.
 */
export class WebhookEventDto implements WebhookEventBody {
  @ApiProperty({
    format: 'uuid',
    description:
      'Event id: the same in every attempt and every subscription (also the webhook-id header); deduplicate by it',
  })
  id!: string;

  @ApiProperty({
    enum: WEBHOOK_EVENT_TYPES,
    example: 'card_issue.status_changed',
    description:
      'card_issue.created: stored with status CREATED. card_issue.failed: stored with status FAILED, or a later ' +
      'change to FAILED (then after the card_issue.status_changed of the same change, with the same sequence). ' +
      'card_issue.status_changed: every status change after the creation (PATCH or the scheduler).',
  })
  type!: WebhookEventType;

  @ApiProperty({
    example: '2026-11-25T12:00:00.000Z',
    description: 'The instant of the change, ISO 8601 UTC with milliseconds',
  })
  createdAt!: string;

  @ApiProperty({
    type: 'integer',
    minimum: 1,
    example: 3,
    description:
      'Per request: 1 at creation, +1 per status change; the events of one change share it. Order by it; a receiver ' +
      'may get an event again (at-least-once) but never a later sequence of a request before an earlier one',
  })
  sequence!: number;

  @ApiProperty({ type: WebhookEventDataDto })
  data!: WebhookEventDataDto;
}
