import { UseGuards, applyDecorators } from '@nestjs/common';
import { ApiForbiddenResponse, ApiSecurity, ApiTags } from '@nestjs/swagger';
import { CardIssueErrorBody } from '../../errors/card-issue-error-body.dto';
import { X_SECRET_SCHEME, XSecretGuard } from './x-secret.guard';

/**
 * A reference service's controller: its OpenAPI tag, the X-secret security scheme and its
 * 403, and the guard that enforces it (spec part 5), declared once for all of them.
 */
export const XSecretProtected = (tag: string) =>
  applyDecorators(
    ApiTags(tag),
    ApiSecurity(X_SECRET_SCHEME),
    ApiForbiddenResponse({
      type: CardIssueErrorBody,
      description: 'X-secret header is invalid or missing',
    }),
    UseGuards(XSecretGuard),
  );
