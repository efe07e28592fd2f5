import { Param } from '@nestjs/common';
import { ApiParam } from '@nestjs/swagger';
import { PatternParamPipe } from '@bank/shared/validation';

/**
 * The path parameters of the webhook subscription endpoints, checked by PatternParamPipe (400
 * naming the parameter; a malformed uuid would otherwise reach PostgreSQL as a cast error).
 */

const UUID_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
/** A bigserial: positive, at most 18 digits so it always fits a bigint. */
const DELIVERY_ID_PATTERN = /^[1-9]\d{0,17}$/;

export const SubscriptionIdParam = (): ParameterDecorator =>
  Param('id', new PatternParamPipe(UUID_PATTERN, 'must be a UUID'));

export const ApiSubscriptionIdParam = () =>
  ApiParam({
    name: 'id',
    description: 'Subscription id (UUID)',
    schema: { type: 'string', format: 'uuid', example: '0b6f3a57-3f53-4a53-9d0e-0e1c2f6a9b11' },
  });

export const DeliveryIdParam = (): ParameterDecorator =>
  Param(
    'deliveryId',
    new PatternParamPipe(DELIVERY_ID_PATTERN, 'must be a positive integer of at most 18 digits'),
  );

export const ApiDeliveryIdParam = () =>
  ApiParam({
    name: 'deliveryId',
    description: 'Delivery id, as the delivery log shows it',
    schema: { type: 'string', pattern: '^[1-9][0-9]{0,17}$', example: '42' },
  });
