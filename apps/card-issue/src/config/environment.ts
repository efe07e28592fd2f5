import { BaseEnvironment } from '@bank/shared/nest';

export const SERVICE_NAME = 'card-issue';

/** Configuration of the card issue service (README lists every variable). */
export class CardIssueEnvironment extends BaseEnvironment {
  override PORT = 3000;
}
