import { Module } from '@nestjs/common';
import { CardIssuesStorageModule } from '../card-issues/card-issues-storage.module';
import { IntegrationsModule } from '../integrations/integrations.module';
import { OutboxRepository } from './outbox.repository';
import { OutboxScheduler } from './outbox.scheduler';
import { OutboxMetrics } from './outbox.metrics';
import { OutboxService } from './outbox.service';

@Module({
  imports: [IntegrationsModule, CardIssuesStorageModule],
  providers: [OutboxRepository, OutboxMetrics, OutboxService, OutboxScheduler],
  exports: [OutboxService],
})
export class OutboxModule {}
