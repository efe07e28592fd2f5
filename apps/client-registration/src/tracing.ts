// Imported first by main.ts: tracing starts (the SDK, pg's statement spans) before anything is
// served or queried, so this file imports nothing of the service (its config module loads Nest).
import { startTracing } from '@bank/shared/tracing';

startTracing('client-registration');
