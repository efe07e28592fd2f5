import { Transform } from 'class-transformer';
import { IsBoolean } from 'class-validator';
import { BaseEnvironment, Describe, toBoolean } from '@bank/shared/config';

export const SERVICE_NAME = 'client-registration';

/** Configuration of the client registration service (docs/configuration.md lists every variable). */
export class ClientRegistrationEnvironment extends BaseEnvironment {
  static override readonly PORT_VARIABLE = 'CLIENT_REGISTRATION_PORT';
  override PORT = 3001;

  @Describe('Timed work: the hourly purge of expired idempotency keys; `false`: none.')
  @Transform(toBoolean)
  @IsBoolean()
  SCHEDULER_ENABLED = true;
}
