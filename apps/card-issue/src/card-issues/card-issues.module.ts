import { Module } from '@nestjs/common';
import { IntegrationsModule } from '../integrations/integrations.module';
import { OutboxModule } from '../outbox/outbox.module';
import { WebhooksModule } from '../webhooks/webhooks.module';
import { CardIssueRequestPipe } from './card-issue-request.pipe';
import { CardIssuesStorageModule } from './card-issues-storage.module';
import { CardIssuesController } from './card-issues.controller';
import { SchedulerMetrics } from './scheduler.metrics';
import { CardIssuesScheduler } from './card-issues.scheduler';
import { HolderSweeper } from './holder-sweeper.service';
import { CardIssuesService } from './card-issues.service';
import { IdempotencyService } from './idempotency.service';
import { StatusMovesService } from './status-moves.service';

@Module({
  imports: [CardIssuesStorageModule, IntegrationsModule, OutboxModule, WebhooksModule],
  controllers: [CardIssuesController],
  providers: [
    CardIssuesService,
    IdempotencyService,
    CardIssueRequestPipe,
    StatusMovesService,
    CardIssuesScheduler,
    HolderSweeper,
    SchedulerMetrics,
  ],
  exports: [CardIssuesStorageModule, StatusMovesService],
})
export class CardIssuesModule {}
