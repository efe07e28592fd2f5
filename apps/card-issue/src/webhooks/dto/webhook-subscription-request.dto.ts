import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import {
  ArrayMaxSize,
  ArrayMinSize,
  ArrayUnique,
  IsArray,
  IsBoolean,
  IsIn,
  IsOptional,
  IsString,
  MaxLength,
  ValidateIf,
} from 'class-validator';
import { WEBHOOK_EVENT_TYPES, WebhookEventType } from '../webhook-events.model';

/** The column's width (varchar(2048)); the scheme and address rules are the service's (400 naming the rule). */
export const WEBHOOK_URL_MAX_LENGTH = 2048;
export const WEBHOOK_DESCRIPTION_MAX_LENGTH = 500;

const URL_DESCRIPTION =
  'Where the events are POSTed. http or https (https only with NODE_ENV=production), no user:password@, ' +
  'and only a globally reachable address, literal or resolved at delivery: not private, loopback, ' +
  'link-local, CGNAT, multicast, any block of the IANA special-purpose registries or the service host itself, ' +
  'unless WEBHOOK_ALLOWED_TARGET_CIDRS allows it. Redirects are not followed.';

const EVENT_TYPES_DESCRIPTION =
  'The event types to receive (at least one, no repeats); each event is described by the schema WebhookEventDto';

/** Left out may be; null may not (only description has a meaning for null). */
const IsOmittable = () => ValidateIf((_object: object, value: unknown) => value !== undefined);

export class CreateWebhookSubscriptionDto {
  @ApiProperty({
    maxLength: WEBHOOK_URL_MAX_LENGTH,
    example: 'https://receiver.example.com/card-issue-events',
    description: URL_DESCRIPTION,
  })
  @IsString()
  @MaxLength(WEBHOOK_URL_MAX_LENGTH)
  url!: string;

  @ApiProperty({
    enum: WEBHOOK_EVENT_TYPES,
    isArray: true,
    example: ['card_issue.status_changed'],
    description: EVENT_TYPES_DESCRIPTION,
  })
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(WEBHOOK_EVENT_TYPES.length)
  @ArrayUnique()
  @IsIn(WEBHOOK_EVENT_TYPES, {
    each: true,
    message: `each value in eventTypes must be one of ${WEBHOOK_EVENT_TYPES.join(', ')}`,
  })
  eventTypes!: WebhookEventType[];

  @ApiPropertyOptional({
    type: String,
    nullable: true,
    maxLength: WEBHOOK_DESCRIPTION_MAX_LENGTH,
    example: 'Partner portal',
  })
  @IsOptional()
  @IsString()
  @MaxLength(WEBHOOK_DESCRIPTION_MAX_LENGTH)
  description?: string | null;

  @ApiPropertyOptional({
    default: true,
    description: 'false: stored, but no event is written for it until it is enabled',
  })
  @IsOmittable()
  @IsBoolean()
  enabled?: boolean;
}

/** Every field optional; a field left out keeps its value, `description: null` clears it. */
export class UpdateWebhookSubscriptionDto {
  @ApiPropertyOptional({ maxLength: WEBHOOK_URL_MAX_LENGTH, description: URL_DESCRIPTION })
  @IsOmittable()
  @IsString()
  @MaxLength(WEBHOOK_URL_MAX_LENGTH)
  url?: string;

  @ApiPropertyOptional({
    enum: WEBHOOK_EVENT_TYPES,
    isArray: true,
    description: `${EVENT_TYPES_DESCRIPTION}; replaces the stored list (events already written still go out)`,
  })
  @IsOmittable()
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(WEBHOOK_EVENT_TYPES.length)
  @ArrayUnique()
  @IsIn(WEBHOOK_EVENT_TYPES, {
    each: true,
    message: `each value in eventTypes must be one of ${WEBHOOK_EVENT_TYPES.join(', ')}`,
  })
  eventTypes?: WebhookEventType[];

  @ApiPropertyOptional({
    type: String,
    nullable: true,
    maxLength: WEBHOOK_DESCRIPTION_MAX_LENGTH,
    description: 'null clears it',
  })
  @IsOptional()
  @IsString()
  @MaxLength(WEBHOOK_DESCRIPTION_MAX_LENGTH)
  description?: string | null;

  @ApiPropertyOptional({
    description:
      'false: no new event is written for it (deliveries already written still go out); true: events resume from ' +
      'the next change, and a subscription the service disabled (autoDisabledAt) starts afresh, its waiting deliveries going out',
  })
  @IsOmittable()
  @IsBoolean()
  enabled?: boolean;
}
