import { Controller } from '@nestjs/common';
import { OPERATION_SERVICE_V2_TAG } from '../reference-services.openapi';
import { XSecretProtected } from '../x-secret/x-secret.decorator';
import { OperationRoutes } from './operations.controller';

/** {base_url}/operation-api-v2: the same interface (own tag and operation ids in OpenAPI). */
@XSecretProtected(OPERATION_SERVICE_V2_TAG)
@Controller('api/v1/operations')
export class OperationsV2Controller extends OperationRoutes {}
