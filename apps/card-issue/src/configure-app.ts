import { NestFastifyApplication } from '@nestjs/platform-fastify';
import { CardIssueExceptionFilter, configureHttpApp } from '@bank/shared/nest';
import { documentReferenceServices } from './reference-services/reference-services.openapi';
import { BUSINESS_TIME_ZONE, Clock } from '@bank/shared/calendar';

/** The whole HTTP setup of the service; main.ts and every end-to-end test call it. */
export function configureApp(app: NestFastifyApplication): void {
  configureHttpApp(app, {
    filter: new CardIssueExceptionFilter(app.get(Clock), app.get<string>(BUSINESS_TIME_ZONE)),
    swagger: {
      title: 'Card issue service',
      description:
        'Accepts bank card issue requests (virtual or plastic; for oneself, a third party or nameless), ' +
        'tracks their status and coordinates the user, branch and operation services.',
      version: '2.0',
      customize: documentReferenceServices,
    },
  });
}
