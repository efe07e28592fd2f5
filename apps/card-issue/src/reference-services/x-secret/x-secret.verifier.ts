import { createHash, timingSafeEqual } from 'node:crypto';
import { Inject, Injectable, Logger, OnModuleInit } from '@nestjs/common';
import { ENVIRONMENT } from '@bank/shared/nest';
import { CardIssueEnvironment, DEV_X_SECRET, xSecretOf } from '../../config/environment.config';

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
