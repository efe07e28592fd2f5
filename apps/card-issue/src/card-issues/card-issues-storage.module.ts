import { Module } from '@nestjs/common';
import { CardIssuesRepository } from './card-issues.repository';

/**
 * The card_issue_* tables' one repository, on its own so that the outbox (which records the
 * operation ids) can use it without importing CardIssuesModule, which imports the outbox.
 */
@Module({
  providers: [CardIssuesRepository],
  exports: [CardIssuesRepository],
})
export class CardIssuesStorageModule {}
