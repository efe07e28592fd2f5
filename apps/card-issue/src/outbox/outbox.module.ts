import { Module } from '@nestjs/common';
import { CardIssuesStorageModule } from '../card-issues/card-issues-storage.module';
import { IntegrationsModule } from '../integrations/integrations.module';
import { OutboxRepository } from './outbox.repository';
import { OutboxScheduler } from './outbox.scheduler';
import { OutboxService } from './outbox.service';

@Module({
  imports: [IntegrationsModule, CardIssuesStorageModule],
  providers: [OutboxRepository, OutboxService, OutboxScheduler],
  exports: [OutboxService],
})
export class OutboxModule {}
