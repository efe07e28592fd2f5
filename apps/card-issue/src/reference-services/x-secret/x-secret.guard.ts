import { CanActivate, ExecutionContext, Injectable } from '@nestjs/common';
import { FastifyRequest } from 'fastify';
import { InvalidXSecretError } from './x-secret.errors';
import { XSecretVerifier } from './x-secret.verifier';

/** Header and OpenAPI security scheme name of the reference services (spec 5). */
export const X_SECRET_HEADER = 'X-secret';
export const X_SECRET_SCHEME = 'X-secret';

/** 403 in the card-issue error shape unless the X-secret header carries the configured secret. */
@Injectable()
export class XSecretGuard implements CanActivate {
  constructor(private readonly verifier: XSecretVerifier) {}

  canActivate(context: ExecutionContext): boolean {
    const request = context.switchToHttp().getRequest<FastifyRequest>();
    if (!this.verifier.matches(request.headers[X_SECRET_HEADER.toLowerCase()])) {
      throw new InvalidXSecretError();
    }
    return true;
  }
}
