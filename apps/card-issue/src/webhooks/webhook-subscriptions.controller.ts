import { Body, Controller, Delete, Get, HttpCode, Patch, Post, Query } from '@nestjs/common';
import {
  ApiAcceptedResponse,
  ApiBadRequestResponse,
  ApiConflictResponse,
  ApiExtraModels,
  ApiCreatedResponse,
  ApiNoContentResponse,
  ApiNotFoundResponse,
  ApiOkResponse,
  ApiOperation,
  ApiTags,
} from '@nestjs/swagger';
import { RequireScopes } from '@bank/shared/auth';
import { CardIssueErrorBody } from '../errors/card-issue-error-body.dto';
import { WebhookEventDto } from './dto/webhook-event.dto';
import { cardIssueEventCallbacks } from './dto/webhook-event.callback';
import { WebhookDeliveryDto } from './dto/webhook-delivery.dto';
import { PageQueryDto } from '../card-issues/dto/list-query.dto';
import { WebhookDeliveriesQueryDto } from './dto/webhook-list-query.dto';
import {
  ApiDeliveryIdParam,
  ApiSubscriptionIdParam,
  DeliveryIdParam,
  SubscriptionIdParam,
} from './dto/webhook-subscription-params.dto';
import {
  CreateWebhookSubscriptionDto,
  UpdateWebhookSubscriptionDto,
} from './dto/webhook-subscription-request.dto';
import {
  CreatedWebhookSubscriptionDto,
  RotatedWebhookSecretDto,
  WebhookSubscriptionDto,
} from './dto/webhook-subscription-response.dto';
import { WebhookSubscriptionsService } from './webhook-subscriptions.service';
import { WEBHOOK_SCOPES } from './webhooks.scopes';

const DELIVERY_DESCRIPTION =
  'Each event the subscription wants is POSTed to its URL as JSON (schema WebhookEventDto; the callback ' +
  'cardIssueEvent), signed the Standard Webhooks way: webhook-id (the event id), webhook-timestamp (unix seconds) ' +
  'and webhook-signature: v1,<base64 HMAC-SHA256 of "<webhook-id>.<webhook-timestamp>.<body>" keyed with the ' +
  'base64-decoded part of the secret after whsec_> (a second, space-separated, while a rotated secret overlaps), ' +
  'plus X-Request-Id and traceparent when the change had them. Any 2xx within WEBHOOK_TIMEOUT_MS acknowledges it; ' +
  'anything else is retried with exponential backoff until WEBHOOK_MAX_ATTEMPTS, then dead-lettered. ' +
  'Events of one request arrive in sequence order; deduplicate by id (docs/webhooks.md).';

const NOT_FOUND = 'No subscription with this id';

@ApiTags('webhook-subscriptions')
// The callbacks below name the event schema by reference; this puts it in the components.
@ApiExtraModels(WebhookEventDto)
@Controller('api/v1/webhook-subscriptions')
export class WebhookSubscriptionsController {
  constructor(private readonly subscriptions: WebhookSubscriptionsService) {}

  @Post()
  @RequireScopes(WEBHOOK_SCOPES.manage)
  @HttpCode(201)
  @ApiOperation({
    summary: 'Subscribe a URL to card issue events',
    description: `Answers the subscription with its signing secret, shown this once. ${DELIVERY_DESCRIPTION}`,
    // The events themselves: POSTed to the URL the subscription names.
    callbacks: cardIssueEventCallbacks(),
  })
  @ApiCreatedResponse({
    type: CreatedWebhookSubscriptionDto,
    description: 'Stored; secret shown once',
  })
  @ApiBadRequestResponse({
    type: CardIssueErrorBody,
    description: 'Validation failed, or the URL breaks a target rule (errors.url names it)',
  })
  @ApiConflictResponse({
    type: CardIssueErrorBody,
    description:
      'WEBHOOK_MAX_SUBSCRIPTIONS (default 100) subscriptions exist already, disabled ones included: delete one first',
  })
  create(@Body() body: CreateWebhookSubscriptionDto): Promise<CreatedWebhookSubscriptionDto> {
    return this.subscriptions.create(body);
  }

  @Get()
  @RequireScopes(WEBHOOK_SCOPES.manage)
  @ApiOperation({ summary: 'Subscriptions, newest first (without secrets)' })
  @ApiOkResponse({
    type: [WebhookSubscriptionDto],
    description: 'The page (empty when there is none)',
  })
  @ApiBadRequestResponse({
    type: CardIssueErrorBody,
    description: 'limit / offset not a decimal integer in its range',
  })
  list(@Query() query: PageQueryDto): Promise<WebhookSubscriptionDto[]> {
    return this.subscriptions.list(query.limit, query.offset);
  }

  @Get(':id')
  @RequireScopes(WEBHOOK_SCOPES.manage)
  @ApiOperation({ summary: 'A subscription (without its secret)' })
  @ApiSubscriptionIdParam()
  @ApiOkResponse({ type: WebhookSubscriptionDto, description: 'The subscription' })
  @ApiBadRequestResponse({ type: CardIssueErrorBody, description: 'Malformed id' })
  @ApiNotFoundResponse({ type: CardIssueErrorBody, description: NOT_FOUND })
  get(@SubscriptionIdParam() id: string): Promise<WebhookSubscriptionDto> {
    return this.subscriptions.get(id);
  }

  @Patch(':id')
  @RequireScopes(WEBHOOK_SCOPES.manage)
  @ApiOperation({
    summary: 'Change a subscription',
    description:
      'Only the fields sent change. enabled=false stops new events from being written for it; deliveries ' +
      'already written still go out. New event types apply to the changes after this one. enabled=true ' +
      'on a subscription the service disabled (autoDisabledAt) re-enables it: autoDisabledAt, ' +
      'consecutiveFailures and failingSince are cleared and its waiting deliveries go out.',
  })
  @ApiSubscriptionIdParam()
  @ApiOkResponse({ type: WebhookSubscriptionDto, description: 'The subscription as changed' })
  @ApiBadRequestResponse({
    type: CardIssueErrorBody,
    description: 'Validation failed, or the URL breaks a target rule (errors.url names it)',
  })
  @ApiNotFoundResponse({ type: CardIssueErrorBody, description: NOT_FOUND })
  update(
    @SubscriptionIdParam() id: string,
    @Body() body: UpdateWebhookSubscriptionDto,
  ): Promise<WebhookSubscriptionDto> {
    return this.subscriptions.update(id, body);
  }

  @Delete(':id')
  @RequireScopes(WEBHOOK_SCOPES.manage)
  @HttpCode(204)
  @ApiOperation({
    summary: 'Delete a subscription',
    description:
      'Its deliveries (pending ones included, which are then never sent) and their log go with it.',
  })
  @ApiSubscriptionIdParam()
  @ApiNoContentResponse({ description: 'Deleted' })
  @ApiBadRequestResponse({ type: CardIssueErrorBody, description: 'Malformed id' })
  @ApiNotFoundResponse({ type: CardIssueErrorBody, description: NOT_FOUND })
  delete(@SubscriptionIdParam() id: string): Promise<void> {
    return this.subscriptions.delete(id);
  }

  @Post(':id/rotate-secret')
  @RequireScopes(WEBHOOK_SCOPES.manage)
  @HttpCode(200)
  @ApiOperation({
    summary: 'Replace the signing secret',
    description:
      'Answers the new secret, shown this once, in the Standard Webhooks form (whsec_ + base64). The replaced secret ' +
      'keeps signing next to it (a second v1 in webhook-signature) until previousSecretExpiresAt, ' +
      'WEBHOOK_SECRET_OVERLAP_HOURS (default 24) from now.',
  })
  @ApiSubscriptionIdParam()
  @ApiOkResponse({ type: RotatedWebhookSecretDto, description: 'The new secret, shown once' })
  @ApiBadRequestResponse({ type: CardIssueErrorBody, description: 'Malformed id' })
  @ApiNotFoundResponse({ type: CardIssueErrorBody, description: NOT_FOUND })
  rotateSecret(@SubscriptionIdParam() id: string): Promise<RotatedWebhookSecretDto> {
    return this.subscriptions.rotateSecret(id);
  }

  @Get(':id/deliveries')
  @RequireScopes(WEBHOOK_SCOPES.manage)
  @ApiOperation({
    summary: 'The delivery log of a subscription, newest first',
    description:
      'One entry per event written for the subscription, with its state, the outcome of its last attempt and ' +
      'every attempt (status code, latency, error). Delivered entries are purged after WEBHOOK_RETENTION_HOURS.',
  })
  @ApiSubscriptionIdParam()
  @ApiOkResponse({ type: [WebhookDeliveryDto], description: 'The page (empty when there is none)' })
  @ApiBadRequestResponse({
    type: CardIssueErrorBody,
    description:
      'Malformed id, unknown state, or limit / offset not a decimal integer in its range',
  })
  @ApiNotFoundResponse({ type: CardIssueErrorBody, description: NOT_FOUND })
  listDeliveries(
    @SubscriptionIdParam() id: string,
    @Query() query: WebhookDeliveriesQueryDto,
  ): Promise<WebhookDeliveryDto[]> {
    return this.subscriptions.listDeliveries(id, query);
  }

  @Post(':id/deliveries/:deliveryId/redeliver')
  @RequireScopes(WEBHOOK_SCOPES.manage)
  @HttpCode(202)
  @ApiOperation({
    summary: 'Redeliver a dead-lettered delivery',
    description:
      'A DEAD delivery becomes PENDING again, due now, its attempts counted from zero (its earlier attempts stay ' +
      'in the log); the later deliveries of the same request to this subscription, held back behind it, are due ' +
      'now too. The body and its event id are the same as before, so a receiver that got it deduplicates it.',
  })
  @ApiSubscriptionIdParam()
  @ApiDeliveryIdParam()
  @ApiAcceptedResponse({ description: 'Queued for delivery' })
  @ApiBadRequestResponse({ type: CardIssueErrorBody, description: 'Malformed id or delivery id' })
  @ApiNotFoundResponse({
    type: CardIssueErrorBody,
    description: 'No subscription with this id, or no such delivery of it',
  })
  @ApiConflictResponse({
    type: CardIssueErrorBody,
    description: 'The delivery is not DEAD (PENDING: on its way; DELIVERED: arrived)',
  })
  redeliver(
    @SubscriptionIdParam() id: string,
    @DeliveryIdParam() deliveryId: string,
  ): Promise<void> {
    return this.subscriptions.redeliver(id, deliveryId);
  }
}
