/*
 * The card-issue test harness: start the service as main.ts does, and typed payload builders.
 * The service's own specs import these files by relative path; the tools import this entry
 * point as `@bank/card-issue/testing` (the one import of this app the lint rule allows them).
 */
export * from './card-issue.harness';
export * from './users.fixture';
export * from './card-issue-requests.fixture';
export * from './bulk-requests.fixture';

// Providers a tool reaches inside the running service for (app.get(...)).
export { CardIssuesRepository } from '../src/card-issues/card-issues.repository';
export { StatusMovesService } from '../src/card-issues/status-moves.service';
export { OutboxRepository } from '../src/outbox/outbox.repository';
export { OutboxService } from '../src/outbox/outbox.service';
// The SQL the repository runs, for the bench baseline that runs the same statements.
export * from '../src/card-issues/card-issues.sql';
// Its configuration class, which tools/deploy-check validates the Kubernetes configuration with.
export { CardIssueEnvironment } from '../src/config/environment.config';
// A real webhook receiver on loopback, for the tools that subscribe one (failover).
export * from './webhook-receiver';
