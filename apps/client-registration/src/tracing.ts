// Imported first by main.ts: the SDK must patch http, fastify, @nestjs/core and pg before they
// are loaded, so this file imports nothing of the service (its config module loads Nest).
import { startTracing } from '@bank/shared/tracing';

startTracing('client-registration');
