import { Module } from '@nestjs/common';
import { CardIssuesStorageModule } from '../card-issues/card-issues-storage.module';
import { IntegrationsModule } from '../integrations/integrations.module';
import { OutboxRepository } from './outbox.repository';
import { OutboxMetrics } from './outbox.metrics';
import { OutboxService } from './outbox.service';

@Module({
  imports: [IntegrationsModule, CardIssuesStorageModule],
  providers: [OutboxRepository, OutboxMetrics, OutboxService],
  exports: [OutboxService],
})
export class OutboxModule {}
