import { DynamicModule, Module } from '@nestjs/common';
import { DatabaseModule } from '@bank/shared/database';
import { CoreModule, HealthModule } from '@bank/shared/nest';
import { ClientRegistrationEnvironment, SERVICE_NAME } from './config/environment.config';
import { ClientsModule } from './clients/clients.module';
import { DATABASE_OPTIONS } from './database/database.config';
import { ManagersModule } from './managers/managers.module';

@Module({})
export class AppModule {
  /** @param overrides configuration values that win over the environment (tests) */
  static register(overrides: Record<string, string | undefined> = {}): DynamicModule {
    return {
      module: AppModule,
      imports: [
        CoreModule.forRoot({
          serviceName: SERVICE_NAME,
          environment: ClientRegistrationEnvironment,
          overrides,
        }),
        DatabaseModule.forRoot(DATABASE_OPTIONS),
        HealthModule.forService(SERVICE_NAME),
        ManagersModule,
        ClientsModule,
      ],
    };
  }
}
