import { createHash, timingSafeEqual } from 'node:crypto';
import {
  CanActivate,
  ExecutionContext,
  Inject,
  Injectable,
  Logger,
  Module,
  OnModuleInit,
} from '@nestjs/common';
import { FastifyRequest } from 'fastify';
import { DomainError } from '@bank/shared/errors';
import { ENVIRONMENT } from '@bank/shared/nest';
import { CardIssueEnvironment, DEV_X_SECRET, xSecretOf } from '../config/environment';

/** Header and OpenAPI security scheme name of the downstream reference services (spec 5). */
export const X_SECRET_HEADER = 'X-secret';
export const X_SECRET_SCHEME = 'X-secret';

export class InvalidXSecretError extends DomainError {
  readonly code = 'X_SECRET_INVALID';
  readonly httpStatus = 403;

  constructor() {
    super('X-secret header is invalid or missing');
  }
}

function digest(value: string): Buffer {
  return createHash('sha256').update(value, 'utf8').digest();
}

/**
 * Holds the expected secret as a digest. Comparing digests keeps the comparison constant-time
 * whatever the length of the presented value (timingSafeEqual needs equal-length buffers).
 */
@Injectable()
export class XSecretVerifier implements OnModuleInit {
  private readonly logger = new Logger('XSecret');
  private readonly expected: Buffer;

  constructor(@Inject(ENVIRONMENT) private readonly env: CardIssueEnvironment) {
    this.expected = digest(xSecretOf(env));
  }

  onModuleInit(): void {
    if (this.env.X_SECRET === undefined) {
      this.logger.warn(
        `X_SECRET is not set: the downstream services accept the development secret "${DEV_X_SECRET}". ` +
          'Set X_SECRET (mandatory with NODE_ENV=production).',
      );
    }
  }

  matches(presented: unknown): boolean {
    if (typeof presented !== 'string' || presented === '') return false;
    return timingSafeEqual(digest(presented), this.expected);
  }
}

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

/** Imported by every downstream module so that one verifier (and one warning) serves them all. */
@Module({ providers: [XSecretVerifier, XSecretGuard], exports: [XSecretVerifier, XSecretGuard] })
export class XSecretModule {}
