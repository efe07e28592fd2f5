import { applyDecorators, SetMetadata, UseGuards } from '@nestjs/common';
import { ApiBearerAuth, ApiExtension } from '@nestjs/swagger';
import { BearerAuthGuard, REQUIRED_SCOPES } from './bearer-auth.guard';

/** Name of the OpenAPI security scheme (http bearer, JWT). */
export const BEARER_SCHEME = 'bearer';

/**
 * OpenAPI extension listing the scopes an operation requires. OpenAPI 3.0 lets only oauth2 and
 * openIdConnect requirements name scopes (an http bearer requirement's list must be empty), and
 * the token endpoint is the deployment's, so the scopes are declared here.
 */
export const REQUIRED_SCOPES_EXTENSION = 'x-required-scopes';

/**
 * An operation behind the bearer JWT (AUTH_MODE=jwt): the guard, the scopes the token must
 * carry, and its OpenAPI security requirement. The 401 and 403 answers are documented for
 * every such operation by the service's Swagger setup, in its own error shape.
 */
export const RequireScopes = (...scopes: string[]) =>
  applyDecorators(
    SetMetadata(REQUIRED_SCOPES, scopes),
    UseGuards(BearerAuthGuard),
    ApiBearerAuth(BEARER_SCHEME),
    ApiExtension(REQUIRED_SCOPES_EXTENSION, scopes),
  );
