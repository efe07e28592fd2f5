import { Injectable } from '@nestjs/common';
import { Currency, generateAccountNumber } from '@bank/shared/identifiers';

/**
 * Source of new account numbers (40702 + currency code + 12 random digits). A provider of
 * its own so tests can force collisions; uniqueness itself is the database constraint's job.
 */
@Injectable()
export class AccountNumberGenerator {
  next(currency: Currency): string {
    return generateAccountNumber(currency);
  }
}
