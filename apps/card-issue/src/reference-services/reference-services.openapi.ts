import { DocumentBuilder } from '@nestjs/swagger';
import { X_SECRET_HEADER, X_SECRET_SCHEME } from './x-secret/x-secret.guard';

export const USER_SERVICE_TAG = 'user service';
export const OPERATION_SERVICE_TAG = 'operation service (v1)';
export const OPERATION_SERVICE_V2_TAG = 'operation service (v2 path)';
export const BRANCH_SERVICE_TAG = 'branch service';

/** The X-secret security scheme and the tags of the downstream reference services. */
export function documentReferenceServices(builder: DocumentBuilder): DocumentBuilder {
  return builder
    .addApiKey(
      {
        type: 'apiKey',
        in: 'header',
        name: X_SECRET_HEADER,
        description: 'Shared secret of the downstream reference services (X_SECRET)',
      },
      X_SECRET_SCHEME,
    )
    .addTag(USER_SERVICE_TAG, 'Reference user service at {base_url}/user-api (requires X-secret)')
    .addTag(
      OPERATION_SERVICE_TAG,
      'Reference operation service at {base_url}/operation-api (requires X-secret)',
    )
    .addTag(
      OPERATION_SERVICE_V2_TAG,
      'The same operation service interface at {base_url}/operation-api-v2 (requires X-secret)',
    )
    .addTag(
      BRANCH_SERVICE_TAG,
      'Reference branch service at {base_url}/branch-api (requires X-secret)',
    );
}
