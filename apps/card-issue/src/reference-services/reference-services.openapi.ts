import { DocumentBuilder } from '@nestjs/swagger';
import { X_SECRET_HEADER, X_SECRET_SCHEME } from './x-secret/x-secret.guard';

export const USER_SERVICE_TAG = 'user service';
export const OPERATION_SERVICE_TAG = 'operation service (v1)';
export const OPERATION_SERVICE_V2_TAG = 'operation service (v2 path)';
export const BRANCH_SERVICE_TAG = 'branch service';

/** The X-secret security scheme every reference service requires (spec part 5). */
export function withXSecret(builder: DocumentBuilder): DocumentBuilder {
  return builder.addApiKey(
    {
      type: 'apiKey',
      in: 'header',
      name: X_SECRET_HEADER,
      description: 'Shared secret of the downstream reference services (X_SECRET)',
    },
    X_SECRET_SCHEME,
  );
}
