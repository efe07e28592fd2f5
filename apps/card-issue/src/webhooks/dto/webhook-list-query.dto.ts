import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsOptional } from 'class-validator';
import { PageQueryDto } from '../../card-issues/dto/list-query.dto';
import { WEBHOOK_DELIVERY_STATES, WebhookDeliveryState } from '../webhook-deliveries.repository';

/** The page of a subscription's delivery log, optionally of one state. */
export class WebhookDeliveriesQueryDto extends PageQueryDto {
  @ApiPropertyOptional({
    enum: WEBHOOK_DELIVERY_STATES,
    description: 'Only deliveries in this state',
  })
  @IsOptional()
  @IsIn(WEBHOOK_DELIVERY_STATES)
  state?: WebhookDeliveryState;
}
