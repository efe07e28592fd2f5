import { Module } from '@nestjs/common';
import { IntegrationsModule } from '../integrations/integrations.module';
import { OutboxRepository } from './outbox.repository';
import { OutboxScheduler } from './outbox.scheduler';
import { OutboxService } from './outbox.service';

@Module({
  imports: [IntegrationsModule],
  providers: [OutboxRepository, OutboxService, OutboxScheduler],
  exports: [OutboxService, OutboxRepository],
})
export class OutboxModule {}
