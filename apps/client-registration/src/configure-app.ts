import { NestFastifyApplication } from '@nestjs/platform-fastify';
import { configureHttpApp } from '@bank/shared/nest';
import { RegistrationExceptionFilter } from './errors/registration-exception.filter';
import { BUSINESS_TIME_ZONE, Clock } from '@bank/shared/calendar';

/** The whole HTTP setup of the service; main.ts and every end-to-end test call it. */
export function configureApp(app: NestFastifyApplication): void {
  configureHttpApp(app, {
    filter: new RegistrationExceptionFilter(app.get(Clock), app.get<string>(BUSINESS_TIME_ZONE)),
    swagger: {
      documents: [
        {
          prefix: '',
          title: 'Client registration service',
          description:
            'Registers bank clients, checks age and passport validity, assigns a manager by PIN and opens an account. ' +
            'Errors are in Russian: `error` is a short title, `message` the text, `details` lists violated fields.',
          version: '1.0.1',
          tags: [
            { name: 'clients', description: 'Регистрация клиентов и замена паспортных данных' },
            { name: 'health', description: 'Состояние сервиса и его базы данных' },
          ],
        },
      ],
    },
  });
}
