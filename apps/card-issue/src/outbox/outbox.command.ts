import { DataSource } from 'typeorm';
import {
  buildDataSourceOptions,
  DatabaseModuleOptions,
  DatabaseSettings,
  EmbeddedPostgres,
} from '@bank/shared/database';
import { OutboxRepository } from './outbox.repository';

const OUTBOX_COMMANDS = ['outbox:dead', 'outbox:redeliver'] as const;
export type OutboxCommand = (typeof OUTBOX_COMMANDS)[number];

export function isOutboxCommand(value: string | undefined): value is OutboxCommand {
  return (OUTBOX_COMMANDS as readonly string[]).includes(value ?? '');
}

const LISTED = 1_000;
const USAGE = 'Usage: outbox:redeliver <requestId> | outbox:redeliver --all';
const ALL = ['--all', 'all'];

/**
 * The operator's path for dead letters (messages given up after OUTBOX_MAX_ATTEMPTS), run as
 * `node main.js outbox:dead` / `outbox:redeliver <requestId>|--all` (Nx targets outbox-dead and
 * outbox-redeliver --request=<requestId>|all) against the service's database, like the migration commands: no HTTP
 * surface to protect. `outbox:dead` lists them; `outbox:redeliver` puts them back to PENDING
 * with a fresh attempt count, and the running service's next outbox tick delivers them.
 */
export async function runOutboxCommand(
  command: OutboxCommand,
  args: string[],
  dataSource: DataSource,
  log: (line: string) => void = console.log,
): Promise<void> {
  const repository = new OutboxRepository(dataSource);
  if (command === 'outbox:dead') {
    const dead = await repository.deadMessages(LISTED);
    if (!dead.length) log('No dead letters');
    for (const m of dead)
      log(`${m.id} ${m.requestId} ${m.type} attempts=${m.attempts} lastError=${m.lastError ?? ''}`);
    return;
  }
  const target = args[0];
  if (!target) throw new Error(USAGE);
  const requestId = ALL.includes(target) ? null : target;
  log(`Put back for delivery: ${await repository.redeliverDead(requestId)}`);
}

/** runOutboxCommand on the database the service is configured with (main.ts). */
export async function runOutboxCommandOn(
  command: OutboxCommand,
  args: string[],
  options: Pick<DatabaseModuleOptions, 'serviceName' | 'entities' | 'migrations'>,
  settings: DatabaseSettings,
): Promise<void> {
  const embedded = settings.url ? null : await EmbeddedPostgres.start(settings.embeddedDataDir, 4);
  const url = settings.url ?? (embedded as EmbeddedPostgres).url;
  const dataSource = await new DataSource(
    buildDataSourceOptions(url, { ...settings, poolSize: 1 }, options),
  ).initialize();
  try {
    await runOutboxCommand(command, args, dataSource);
  } finally {
    await dataSource.destroy();
    await embedded?.stop();
  }
}
