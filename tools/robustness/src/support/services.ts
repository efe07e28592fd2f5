/* eslint-disable @nx/enforce-module-boundaries --
 * The robustness suite drives the two real applications from outside: it boots them exactly
 * as their own e2e tests do (AppModule + configureApp), so it has to import them. Nothing
 * else in the workspace may depend on this project. */
import { NestFastifyApplication } from '@nestjs/platform-fastify';
import { DataSource } from 'typeorm';
import { createTestDatabase, startTestApp, TestApp, TestDatabase } from '@bank/shared/testing';
import { AppModule as CardIssueAppModule } from '../../../../apps/card-issue/src/app.module';
import { configureApp as configureCardIssue } from '../../../../apps/card-issue/src/configure-app';
import { configureApp as configureRegistration } from '../../../../apps/client-registration/src/configure-app';
import { AppModule as RegistrationAppModule } from '../../../../apps/client-registration/src/app.module';
import { SECRET } from '../../../../apps/card-issue/test/fixtures';
import { Clock } from '@bank/shared/calendar';

export { SECRET };
export {
  courier,
  createUser,
  newUser,
  selfPlastic,
  selfVirtual,
  eventually,
  sleep,
} from '../../../../apps/card-issue/test/fixtures';
export {
  NOW as REGISTRATION_NOW,
  registration,
  passportData,
  nextPassport,
} from '../../../../apps/client-registration/test/client-request.fixture';

export interface RunningService {
  db: TestDatabase;
  t: TestApp;
  url: string;
  app: NestFastifyApplication;
  ds: DataSource;
  close(): Promise<void>;
}

/** 12:00 in Moscow on 23-11-2026 (the fixtures' courier date 24-11-2026 is tomorrow). */
export const FIXED_NOW = '2026-11-23T09:00:00.000Z';

async function start(
  label: string,
  boot: (db: TestDatabase) => Promise<TestApp>,
  db?: TestDatabase,
): Promise<RunningService> {
  const database = db ?? (await createTestDatabase(label));
  let t: TestApp;
  try {
    t = await boot(database);
  } catch (error) {
    if (!db) await database.drop();
    throw error;
  }
  return {
    db: database,
    t,
    url: t.url,
    app: t.app,
    ds: t.app.get(DataSource),
    close: async () => {
      await t.close();
      if (!db) await database.drop();
    },
  };
}

/** The card-issue service (with its downstream reference services), scheduler and outbox off unless overridden. */
export function startCardIssue(
  label: string,
  overrides: Record<string, string> = {},
  options: { clock?: Clock; db?: TestDatabase } = {},
): Promise<RunningService> {
  return start(
    label,
    (db) =>
      startTestApp({
        module: CardIssueAppModule.register({
          DATABASE_URL: db.url,
          LOG_LEVEL: 'silent',
          X_SECRET: SECRET,
          SCHEDULER_ENABLED: 'false',
          OUTBOX_ENABLED: 'false',
          ...overrides,
        }),
        configure: configureCardIssue,
        clock: options.clock,
      }),
    options.db,
  );
}

export function startRegistration(
  label: string,
  overrides: Record<string, string> = {},
  options: { clock?: Clock } = {},
): Promise<RunningService> {
  return start(label, (db) =>
    startTestApp({
      module: RegistrationAppModule.register({
        DATABASE_URL: db.url,
        LOG_LEVEL: 'silent',
        ...overrides,
      }),
      configure: configureRegistration,
      clock: options.clock,
    }),
  );
}

/** Row counts of every table a write may touch, as one comparable string. */
export async function cardIssueRowCounts(ds: DataSource): Promise<string> {
  const [row] = await ds.query<Record<string, string>[]>(
    `SELECT (SELECT count(*) FROM card_issue_requests) AS requests,
            (SELECT count(*) FROM card_issue_status_history) AS history,
            (SELECT count(*) FROM card_issue_idempotency_keys) AS keys,
            (SELECT count(*) FROM outbox_messages) AS outbox,
            (SELECT count(*) FROM user_service.users) AS users,
            (SELECT count(*) FROM operation_service.operations) AS operations,
            (SELECT md5(coalesce(string_agg(id::text || status || updated_at::text, ',' ORDER BY id), ''))
               FROM operation_service.operations) AS operation_states,
            (SELECT md5(coalesce(string_agg(request_id || status || status_sequence, ',' ORDER BY request_id), ''))
               FROM card_issue_requests) AS request_states`,
  );
  return JSON.stringify(row);
}

export async function registrationRowCounts(ds: DataSource): Promise<string> {
  const [row] = await ds.query<Record<string, string>[]>(
    `SELECT count(*) AS clients,
            md5(coalesce(string_agg(concat_ws('|', id, passport_series, passport_number, passport_issue_date,
                                              birth_date, birth_place, actualized_at), ',' ORDER BY id), '')) AS state
       FROM clients`,
  );
  return JSON.stringify(row);
}

export { CardIssuesRepository } from '../../../../apps/card-issue/src/card-issues/card-issues.repository';
export { StatusMovesService } from '../../../../apps/card-issue/src/card-issues/status-moves.service';
