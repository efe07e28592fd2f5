import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsOptional } from 'class-validator';
import { IsQueryInteger } from '@bank/shared/validation';
import { LIST_LIMIT, LIST_OFFSET } from '../../card-issues/dto/list-query.dto';
import { WEBHOOK_DELIVERY_STATES, WebhookDeliveryState } from '../webhook-deliveries.repository';

/** Page of a list, with the ranges of the other list endpoint (docs/decisions.md). */
export class WebhookPageQueryDto {
  @ApiPropertyOptional({
    type: 'integer',
    minimum: LIST_LIMIT.min,
    maximum: LIST_LIMIT.max,
    default: LIST_LIMIT.default,
    description: 'Items per page, in decimal digits',
  })
  @IsOptional()
  @IsQueryInteger(LIST_LIMIT.min, LIST_LIMIT.max)
  limit: number = LIST_LIMIT.default;

  @ApiPropertyOptional({
    type: 'integer',
    minimum: LIST_OFFSET.min,
    maximum: LIST_OFFSET.max,
    default: LIST_OFFSET.default,
    description: 'Items to skip, newest first, in decimal digits',
  })
  @IsOptional()
  @IsQueryInteger(LIST_OFFSET.min, LIST_OFFSET.max)
  offset: number = LIST_OFFSET.default;
}

export class WebhookDeliveriesQueryDto extends WebhookPageQueryDto {
  @ApiPropertyOptional({
    enum: WEBHOOK_DELIVERY_STATES,
    description: 'Only deliveries in this state',
  })
  @IsOptional()
  @IsIn(WEBHOOK_DELIVERY_STATES)
  state?: WebhookDeliveryState;
}
