import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { IntegrationsModule } from '../integrations/integrations.module';
import { OutboxModule } from '../outbox/outbox.module';
import { CardIssueRequestPipe } from './card-issue-request.pipe';
import { CardIssuesController } from './card-issues.controller';
import { CardIssuesRepository } from './card-issues.repository';
import { CardIssuesService } from './card-issues.service';
import { CardIssueRequest } from './entities/card-issue-request.entity';
import { CardIssueStatusChange } from './entities/card-issue-status-change.entity';
import { IdempotencyKey } from './entities/idempotency-key.entity';
import { IdempotencyRepository } from './idempotency.repository';
import { CardIssuesScheduler } from './card-issues.scheduler';
import { StatusMovesService } from './status-moves.service';

@Module({
  imports: [
    TypeOrmModule.forFeature([CardIssueRequest, CardIssueStatusChange, IdempotencyKey]),
    IntegrationsModule,
    OutboxModule,
  ],
  controllers: [CardIssuesController],
  providers: [
    CardIssuesService,
    CardIssuesRepository,
    IdempotencyRepository,
    CardIssueRequestPipe,
    StatusMovesService,
    CardIssuesScheduler,
  ],
  exports: [CardIssuesRepository, IdempotencyRepository, StatusMovesService],
})
export class CardIssuesModule {}
