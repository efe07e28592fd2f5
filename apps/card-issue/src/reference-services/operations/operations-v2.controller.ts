import { Controller, UseGuards } from '@nestjs/common';
import { ApiForbiddenResponse, ApiSecurity, ApiTags } from '@nestjs/swagger';
import { CardIssueErrorBody } from '@bank/shared/nest';
import { OPERATION_SERVICE_V2_TAG } from '../reference-services.openapi';
import { X_SECRET_SCHEME, XSecretGuard } from '../x-secret/x-secret.guard';
import { OperationRoutes } from './operations.controller';

/** {base_url}/operation-api-v2: the same interface (own tag and operation ids in OpenAPI). */
@ApiTags(OPERATION_SERVICE_V2_TAG)
@ApiSecurity(X_SECRET_SCHEME)
@ApiForbiddenResponse({
  type: CardIssueErrorBody,
  description: 'X-secret header is invalid or missing',
})
@UseGuards(XSecretGuard)
@Controller('api/v1/operations')
export class OperationsV2Controller extends OperationRoutes {}
