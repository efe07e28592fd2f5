import { Param } from '@nestjs/common';
import { ApiParam } from '@nestjs/swagger';
import { REQUEST_ID_PATTERN, USER_ID_PATTERN } from '@bank/shared/identifiers';
import { PatternParamPipe, USER_ID_MESSAGE } from '@bank/shared/validation';

/**
 * The path parameters of the card issue endpoints. Each is a plain string checked against its
 * identifier format by PatternParamPipe (400 naming the parameter otherwise), with its OpenAPI
 * description on the route (ApiParam), since a parameter decorator cannot carry one.
 */

const REQUEST_ID_MESSAGE = 'must be RCARDB followed by a date ddMMyyyy and 6 digits';

/** `id`: a request id, RCARDB + ddMMyyyy + 6 digits. */
export const RequestIdParam = (): ParameterDecorator =>
  Param('id', new PatternParamPipe(REQUEST_ID_PATTERN, REQUEST_ID_MESSAGE));

export const ApiRequestIdParam = () =>
  ApiParam({
    name: 'id',
    description: 'RCARDB + ddMMyyyy + 6 digits',
    schema: { example: 'RCARDB23112026000001', type: 'string' },
  });

/** `clientId`: a user id, card owner or card holder. */
export const ClientIdParam = (): ParameterDecorator =>
  Param('clientId', new PatternParamPipe(USER_ID_PATTERN, USER_ID_MESSAGE));

export const ApiClientIdParam = () =>
  ApiParam({
    name: 'clientId',
    description: 'User id: X + 5 of A-Z 0-9 (card owner or card holder)',
    schema: { example: 'X1A2B3', type: 'string' },
  });
