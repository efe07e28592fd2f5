import { Param } from '@nestjs/common';
import { UUID_PATTERN } from '@bank/shared/identifiers';
import { PatternParamPipe } from '@bank/shared/validation';

/**
 * Path parameter `id` of /api/clients/{id}: a malformed id is a 400 validation error naming
 * it. Checked by PatternParamPipe (a regular expression test) rather than a parameter DTO
 * through class-validator; documented on the route with ApiParam.
 */
export const ClientIdParam = (): ParameterDecorator =>
  Param('id', new PatternParamPipe(UUID_PATTERN, 'должен быть UUID'));
