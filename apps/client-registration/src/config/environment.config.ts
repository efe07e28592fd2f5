import { BaseEnvironment } from '@bank/shared/nest';

export const SERVICE_NAME = 'client-registration';

/** Configuration of the client registration service (README lists every variable). */
export class ClientRegistrationEnvironment extends BaseEnvironment {
  override PORT = 3001;
}
