import { DynamicModule, Module } from '@nestjs/common';
import { ScheduleModule } from '@nestjs/schedule';
import { DatabaseModule } from '@bank/shared/database';
import { CoreModule, HealthModule } from '@bank/shared/nest';
import { CardIssuesModule } from './card-issues/card-issues.module';
import { CardIssueEnvironment, SERVICE_NAME } from './config/environment.config';
import { DATABASE_OPTIONS } from './database/database.config';
import { ReferenceServicesModule } from './reference-services/reference-services.module';
import { IntegrationsModule } from './integrations/integrations.module';
import { WebhooksModule } from './webhooks/webhooks.module';

@Module({})
export class AppModule {
  /** @param overrides configuration values that win over the environment (tests) */
  static register(overrides: Record<string, string | undefined> = {}): DynamicModule {
    return {
      module: AppModule,
      imports: [
        CoreModule.forRoot({
          serviceName: SERVICE_NAME,
          environment: CardIssueEnvironment,
          overrides,
        }),
        DatabaseModule.forRoot(DATABASE_OPTIONS),
        HealthModule.forService(SERVICE_NAME),
        ReferenceServicesModule,
        IntegrationsModule,
        ScheduleModule.forRoot(),
        CardIssuesModule,
        WebhooksModule,
      ],
    };
  }
}
