import { NestFastifyApplication } from '@nestjs/platform-fastify';
import { configureHttpApp } from '@bank/shared/nest';
import { CardIssueExceptionFilter } from './errors/card-issue-exception.filter';
import { REFERENCE_SERVICE_DOCUMENTS } from './reference-services/reference-services.documents';
import { BUSINESS_TIME_ZONE, Clock } from '@bank/shared/calendar';

/** The whole HTTP setup of the service; main.ts and every end-to-end test call it. */
export function configureApp(app: NestFastifyApplication): void {
  configureHttpApp(app, {
    filter: new CardIssueExceptionFilter(app.get(Clock), app.get<string>(BUSINESS_TIME_ZONE)),
    swagger: {
      documents: [
        {
          // The card issue API alone; each reference service has its own document.
          prefix: '',
          title: 'Card issue service',
          description:
            'Accepts bank card issue requests (virtual or plastic; for oneself, a third party or nameless), ' +
            'tracks their status and coordinates the user, branch and operation services. The reference ' +
            'services this deployment also serves have their own documents: {base_url}/user-api/docs, ' +
            '/operation-api/docs, /operation-api-v2/docs and /branch-api/docs.',
          version: '2.2.1',
          tags: [
            { name: 'card-issue', description: 'Card issue requests and their status' },
            {
              name: 'webhook-subscriptions',
              description:
                'Signed webhooks: subscribe a URL to card issue events, read its delivery log, redeliver (docs/webhooks.md)',
            },
            { name: 'health', description: 'Liveness of the service and its database' },
          ],
          callbackSummaries: {
            cardIssueEvent: "A card issue event, POSTed to the subscription's URL",
          },
        },
        ...REFERENCE_SERVICE_DOCUMENTS,
      ],
    },
  });
}
