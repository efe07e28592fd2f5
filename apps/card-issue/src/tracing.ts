// Imported first by main.ts: tracing starts (the SDK; the instrumentations patch node:http and
// pg) before the service loads them, so this file imports nothing of the service (its config module
// loads Nest).
import { startTracing } from '@bank/shared/tracing';

startTracing('card-issue');
