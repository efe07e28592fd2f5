import { Body, Controller, Get, Injectable, Param, Patch, Post, Res } from '@nestjs/common';
import {
  ApiBadRequestResponse,
  ApiConflictResponse,
  ApiCreatedResponse,
  ApiNotFoundResponse,
  ApiOkResponse,
  ApiOperation,
  ApiParam,
} from '@nestjs/swagger';
import { FastifyReply } from 'fastify';
import { OPERATION_SERVICE_TAG } from '../reference-services.openapi';
import { XSecretProtected } from '../x-secret/x-secret.decorator';
import { CardOwnerParams, HolderParams } from './dto/operation-params.dto';
import { CreateOperationDto, OperationDto, UpdateOperationStatusDto } from './dto/operation.dto';
import { OperationsService } from './operations.service';
import { CardIssueErrorBody } from '../../errors/card-issue-error-body.dto';

const OPERATION_ID_PARAM = {
  name: 'id',
  format: 'uuid',
  example: '3f0e4a52-8f3e-4c55-a0a4-2b8d3c1f9e77',
  description: 'Operation id (UUID; an id of another form names no operation: 404)',
};

/**
 * Routes of the operation service interface. Served twice (v1 and the v2 path variant) through
 * OperationsController below and OperationsV2Controller (operations-v2.controller.ts);
 * class-level decorators live there because Swagger accumulates them along the class hierarchy.
 */
@Injectable()
export abstract class OperationRoutes {
  constructor(private readonly operations: OperationsService) {}

  @Post()
  @ApiOperation({
    summary: 'Create an operation',
    description:
      'Idempotent by requestId: a repeated create answers 200 with the operation already stored.',
  })
  @ApiCreatedResponse({ type: OperationDto, description: 'Created' })
  @ApiOkResponse({ type: OperationDto, description: 'Already existed for this requestId' })
  @ApiBadRequestResponse({ type: CardIssueErrorBody, description: 'Validation failed' })
  @ApiConflictResponse({
    type: CardIssueErrorBody,
    description: 'The requestId has an operation for another owner, holder or form factor',
  })
  async create(
    @Body() body: CreateOperationDto,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<OperationDto> {
    const { operation, created } = await this.operations.create(body);
    void reply.status(created ? 201 : 200);
    return operation;
  }

  @Get('by-owner/:cardOwner')
  @ApiOperation({ summary: 'Operations by card owner, newest first' })
  @ApiOkResponse({
    type: OperationDto,
    isArray: true,
    description: 'The operations of the owner (empty when none)',
  })
  @ApiBadRequestResponse({ type: CardIssueErrorBody, description: 'Malformed user id' })
  byOwner(@Param() params: CardOwnerParams): Promise<OperationDto[]> {
    return this.operations.byOwner(params.cardOwner);
  }

  @Get('by-holder/:userId')
  @ApiOperation({ summary: 'Operations by card holder, newest first' })
  @ApiOkResponse({
    type: OperationDto,
    isArray: true,
    description: 'The operations of the holder (empty when none)',
  })
  @ApiBadRequestResponse({ type: CardIssueErrorBody, description: 'Malformed user id' })
  byHolder(@Param() params: HolderParams): Promise<OperationDto[]> {
    return this.operations.byHolder(params.userId);
  }

  @Get(':id')
  @ApiOperation({ summary: 'Get an operation by id' })
  @ApiParam(OPERATION_ID_PARAM)
  @ApiOkResponse({ type: OperationDto, description: 'The operation' })
  @ApiNotFoundResponse({ type: CardIssueErrorBody, description: 'No operation with that id' })
  get(@Param('id') id: string): Promise<OperationDto> {
    return this.operations.get(id);
  }

  @Patch(':id/status')
  @ApiOperation({
    summary: 'Change the status of an operation',
    description:
      'With `sequence`, an update not newer than the last applied one is ignored and the stored ' +
      'operation is returned unchanged (safe redelivery from an outbox).',
  })
  @ApiParam(OPERATION_ID_PARAM)
  @ApiOkResponse({ type: OperationDto, description: 'The operation after the update' })
  @ApiBadRequestResponse({ type: CardIssueErrorBody, description: 'Validation failed' })
  @ApiNotFoundResponse({ type: CardIssueErrorBody, description: 'No operation with that id' })
  updateStatus(
    @Param('id') id: string,
    @Body() body: UpdateOperationStatusDto,
  ): Promise<OperationDto> {
    return this.operations.updateStatus(id, body);
  }
}

/** {base_url}/operation-api */
@XSecretProtected(OPERATION_SERVICE_TAG)
@Controller('api/v1/operations')
export class OperationsController extends OperationRoutes {}
