import { NestFastifyApplication } from '@nestjs/platform-fastify';
import {
  BUSINESS_TIME_ZONE,
  Clock,
  RegistrationExceptionFilter,
  configureHttpApp,
} from '@bank/shared/nest';

/** The whole HTTP setup of the service; main.ts and every end-to-end test call it. */
export function configureApp(app: NestFastifyApplication): void {
  configureHttpApp(app, {
    filter: new RegistrationExceptionFilter(app.get(Clock), app.get<string>(BUSINESS_TIME_ZONE)),
    swagger: {
      title: 'Client registration service',
      description:
        'Registers bank clients, checks age and passport validity, assigns a manager by PIN and opens an account. ' +
        'Errors are in Russian: `error` is a short title, `message` the text, `details` lists violated fields.',
      version: '1.0',
    },
  });
}
