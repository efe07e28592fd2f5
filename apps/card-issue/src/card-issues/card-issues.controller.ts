import { Body, Controller, Get, Headers, HttpCode, Patch, Post, Query, Res } from '@nestjs/common';
import {
  ApiBadRequestResponse,
  ApiBody,
  ApiConflictResponse,
  ApiCreatedResponse,
  ApiHeader,
  ApiNotFoundResponse,
  ApiOkResponse,
  ApiOperation,
  ApiServiceUnavailableResponse,
  ApiTags,
} from '@nestjs/swagger';
import { FastifyReply } from 'fastify';
import { RequestValidationError } from '@bank/shared/errors';
import { CardIssueRequestPipe } from './card-issue-request.pipe';
import { CardIssuesService } from './card-issues.service';
import { CARD_ISSUE_REQUEST_EXAMPLES } from './dto/card-issue-request.examples';
import { CardIssueRequestDto } from './dto/card-issue-request.dto';
import {
  CardIssueRecordDto,
  CardIssueResponseDto,
  UpdateStatusDto,
} from './dto/card-issue-response.dto';
import { ListByClientQueryDto } from './dto/list-query.dto';
import {
  ApiClientIdParam,
  ApiRequestIdParam,
  ClientIdParam,
  RequestIdParam,
} from './dto/path-params.dto';
import { CardIssueErrorBody } from '../errors/card-issue-error-body.dto';
import { RequireScopes } from '@bank/shared/auth';
import { CARD_ISSUE_SCOPES } from './card-issues.scopes';

const IDEMPOTENT_REPLAY_HEADER = 'idempotent-replayed';
const IDEMPOTENCY_KEY = /^[\x21-\x7e]{1,255}$/;

@ApiTags('card-issue')
@Controller('api/v1/card-issue')
export class CardIssuesController {
  constructor(private readonly cardIssues: CardIssuesService) {}

  @Post()
  @RequireScopes(CARD_ISSUE_SCOPES.write)
  @HttpCode(201)
  @ApiOperation({
    summary: 'Request a card',
    description:
      'Validates the request (spec 2.2 and 2.6), checks every referenced user and branch, creates a third-party ' +
      'holder in the user service, stores the request and answers 201 with status CREATED — or FAILED with a ' +
      'failureReason when a referenced user or branch does not exist (a business failure, not an HTTP error).',
  })
  @ApiHeader({
    name: 'Idempotency-Key',
    required: false,
    description:
      'Up to 255 visible ASCII characters. The same key with the same body replays the first response byte for ' +
      'byte (header Idempotent-Replayed: true) and creates nothing; with another body: 409. While a request with ' +
      'the key is still running, a repeat waits for it (IDEMPOTENCY_WAIT_MS, default 10 s), then 409 with ' +
      'Retry-After; a key whose request died is taken over once its lease (IDEMPOTENCY_LEASE_MS, default 5 s) ' +
      'runs out. Keys are kept 24 hours.',
  })
  @ApiBody({ type: CardIssueRequestDto, examples: CARD_ISSUE_REQUEST_EXAMPLES })
  @ApiCreatedResponse({
    type: CardIssueResponseDto,
    description: 'Stored, CREATED or FAILED',
    headers: {
      'Idempotent-Replayed': {
        description:
          'true when the response is the replay of an earlier request with the same Idempotency-Key',
        schema: { type: 'string', enum: ['true'] },
      },
    },
  })
  @ApiBadRequestResponse({
    type: CardIssueErrorBody,
    description: 'Validation failed: errors names every field',
  })
  @ApiConflictResponse({
    type: CardIssueErrorBody,
    description:
      'Idempotency-Key reused with another body, or still in progress (then with Retry-After, in seconds)',
    headers: {
      'Retry-After': {
        description: 'Seconds to wait before a retry (key in progress only)',
        schema: { type: 'integer' },
      },
    },
  })
  @ApiServiceUnavailableResponse({
    type: CardIssueErrorBody,
    description: 'A downstream service is unavailable; nothing stored',
    headers: {
      'Retry-After': {
        description: 'Seconds after which a retry may succeed',
        schema: { type: 'integer', minimum: 1 },
      },
    },
  })
  async create(
    // Readonly<> keeps the global pipe off this body: CardIssueRequestPipe validates fields and cross-field rules together.
    @Body(CardIssueRequestPipe) body: Readonly<CardIssueRequestDto>,
    @Headers('idempotency-key') idempotencyKey: string | undefined,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<string> {
    if (idempotencyKey !== undefined && !IDEMPOTENCY_KEY.test(idempotencyKey)) {
      throw new RequestValidationError([
        { path: 'Idempotency-Key', message: 'must be 1-255 visible ASCII characters' },
      ]);
    }
    const { body: sent, replayed } = await this.cardIssues.create(body, idempotencyKey);
    if (replayed) void reply.header(IDEMPOTENT_REPLAY_HEADER, 'true');
    // The JSON text itself, so a replay sends the very bytes of the first answer.
    void reply.header('content-type', 'application/json; charset=utf-8');
    return sent;
  }

  @Get('client/:clientId')
  @RequireScopes(CARD_ISSUE_SCOPES.read)
  @ApiOperation({ summary: 'Requests of a user, as card owner or card holder, newest first' })
  @ApiClientIdParam()
  @ApiOkResponse({
    type: [CardIssueRecordDto],
    description: 'The page of records (empty when the user has none), newest first',
  })
  @ApiBadRequestResponse({
    type: CardIssueErrorBody,
    description: 'Malformed user id, or limit / offset not a decimal integer in its range',
  })
  listByClient(
    @ClientIdParam() clientId: string,
    @Query() query: ListByClientQueryDto,
  ): Promise<CardIssueRecordDto[]> {
    return this.cardIssues.listByClient(clientId, query.limit, query.offset);
  }

  @Get(':id')
  @RequireScopes(CARD_ISSUE_SCOPES.read)
  @ApiOperation({ summary: 'A stored request with its status history' })
  @ApiRequestIdParam()
  @ApiOkResponse({ type: CardIssueRecordDto, description: 'The request with its status history' })
  @ApiBadRequestResponse({ type: CardIssueErrorBody, description: 'Malformed request id' })
  @ApiNotFoundResponse({ type: CardIssueErrorBody, description: 'No request with this id' })
  get(@RequestIdParam() id: string): Promise<CardIssueRecordDto> {
    return this.cardIssues.get(id);
  }

  @Patch(':id/status')
  @RequireScopes(CARD_ISSUE_SCOPES.status)
  @ApiOperation({
    summary: 'Change the status of a request',
    description:
      'Any status to any status, except READY only for VIRTUAL and PLASTIC_READY only for PLASTIC (409).',
  })
  @ApiRequestIdParam()
  @ApiOkResponse({ type: CardIssueResponseDto, description: 'The request with its new status' })
  @ApiBadRequestResponse({ type: CardIssueErrorBody, description: 'Invalid status or request id' })
  @ApiNotFoundResponse({ type: CardIssueErrorBody, description: 'No request with this id' })
  @ApiConflictResponse({
    type: CardIssueErrorBody,
    description: 'Status not allowed for the form factor',
  })
  updateStatus(
    @RequestIdParam() id: string,
    @Body() body: UpdateStatusDto,
  ): Promise<CardIssueResponseDto> {
    return this.cardIssues.updateStatus(id, body.status);
  }
}
