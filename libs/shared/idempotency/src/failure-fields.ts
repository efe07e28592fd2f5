import { databaseOutage } from '@bank/shared/database';
import { logSafeMessage } from '@bank/shared/logging';

/**
 * The fields a failed key statement is logged with: the database out of reach (a failover, a
 * restart) is a known outage, named without a stack; anything else keeps its stack.
 */
export function failureFields(error: unknown): Record<string, unknown> {
  const outage = databaseOutage(error);
  return outage ? { kind: outage, error: logSafeMessage(error) } : { err: error };
}
