import {
  FiguresTable,
  PgBouncer,
  TestServiceProcess,
  eventually,
  formatMs,
  sleep,
  startPgBouncer,
} from '@bank/shared/testing';
import {
  createUser,
  SECRET,
  spawnCardIssue,
  startWebhookReceiver,
  WebhookReceiver,
} from '@bank/card-issue/testing';
import { spawnClientRegistration } from '@bank/client-registration/testing';
import { Answer, formatStatuses, recoveryOf } from './support/answers';
import { checkCardIssue, checkRegistration, Findings } from './support/checks';
import { HaCluster, HaNode, missingHaBinaries } from './support/ha-cluster';
import { CardIssueLoad, Owners, RegistrationLoad, sendJson, ServiceLoad } from './support/load';

/**
 * Failover of a real highly available PostgreSQL (Patroni over etcd, HAProxy routing to the
 * leader) under load from both services as processes, half of them through PgBouncer in
 * transaction pooling in front of HAProxy: a SIGKILL of the leader's postmaster, of its whole
 * node, and a planned switchover, then the whole-node kill again in asynchronous mode. After
 * each, on the new leader: every acknowledged write present, no duplicate, no orphan holder,
 * no Idempotency-Key held past its lease, every due status move made once, the outbox and the
 * webhooks delivered (in order), and every service process still running.
 */
const missing = missingHaBinaries();
const skipped = missing.length > 0 && process.env.CI !== 'true';
if (skipped)
  console.log(
    `The failover suite is skipped: ${missing.join(', ')} not installed. Install Debian's ` +
      'patroni etcd-server etcd-client haproxy pgbouncer postgresql-15 to run it ' +
      '(under CI=true a missing package fails the suite).',
  );

const began = Date.now();
/** A line on stderr as the suite goes (Jest shows console.log only at the end of a test). */
const progress = (line: string) =>
  process.stderr.write(`[failover ${formatMs(Date.now() - began)}] ${line}\n`);

const PORT_BASE = Number(process.env.FAILOVER_PORT_BASE ?? 35400);

const COMMON_ENV = {
  LOG_LEVEL: 'warn',
  ERROR_LOG_INTERVAL_MS: '5000',
  RETRY_AFTER_SECONDS: '1',
  DB_POOL_SIZE: '5',
  IDEMPOTENCY_LEASE_MS: '2000',
};
const CARD_ISSUE_ENV = {
  ...COMMON_ENV,
  X_SECRET: SECRET,
  SCHEDULER_ENABLED: 'true',
  SCHEDULER_TICK_MS: '250',
  SCHEDULER_CREATED_DELAY_MS: '1000',
  SCHEDULER_PROCESSING_DELAY_MS: '1000',
  OUTBOX_TICK_MS: '200',
  // A message or delivery whose outcome a failover kept from being recorded goes out again
  // once its lease ends: 3 s here (30 s and 11 s by default).
  OUTBOX_LEASE_MS: '3000',
  WEBHOOK_TIMEOUT_MS: '1000',
  OUTBOX_RETRY_BASE_MS: '100',
  OUTBOX_RETRY_MAX_MS: '1000',
  WEBHOOK_TICK_MS: '200',
  WEBHOOK_RETRY_BASE_MS: '100',
  WEBHOOK_RETRY_MAX_MS: '1000',
  WEBHOOK_ALLOWED_TARGET_CIDRS: '127.0.0.0/8',
};
const REGISTRATION_ENV = { ...COMMON_ENV, SCHEDULER_ENABLED: 'true' };

/** PgBouncer in front of HAProxy: retry a failed server login after 0.5 s (default 15 s). */
const PGBOUNCER_SETTINGS = {
  server_login_retry: 0.5,
  server_connect_timeout: 3,
  query_wait_timeout: 30,
};

interface Target {
  service: 'card-issue' | 'client-registration';
  route: string;
  database: string;
  child: TestServiceProcess;
  load: ServiceLoad;
  receiver?: WebhookReceiver;
}

const figures = new FiguresTable('Failover of a highly available PostgreSQL under load');

(skipped ? describe.skip : describe)('failover of a highly available PostgreSQL (Patroni)', () => {
  let cluster: HaCluster;
  let pgbouncer: PgBouncer | undefined;
  const targets: Target[] = [];
  const receivers: WebhookReceiver[] = [];

  beforeAll(async () => {
    if (missing.length) throw new Error(`not installed (CI=true): ${missing.join(', ')}`);
    cluster = new HaCluster({ portBase: PORT_BASE, synchronous: true });
    const began = Date.now();
    await cluster.start();
    console.log(
      `cluster of ${cluster.nodes.length} nodes healthy in ${formatMs(Date.now() - began)}`,
    );
    const routes = ['HAProxy', 'PgBouncer + HAProxy'];
    // The services refuse a test database whose name does not say so.
    const databases = [
      'card_direct_test',
      'clients_direct_test',
      'card_pooled_test',
      'clients_pooled_test',
    ];
    await cluster.sql(
      'postgres',
      databases.map((db) => `CREATE DATABASE ${db}`),
    );
    pgbouncer = await startPgBouncer(cluster.url('postgres'), 10, PGBOUNCER_SETTINGS);
    const urls = (db: string, pooled: boolean): Record<string, string> =>
      pooled
        ? {
            DATABASE_URL: pgbouncer!.pooledUrl(cluster.url(db)),
            DATABASE_DIRECT_URL: cluster.url(db),
          }
        : { DATABASE_URL: cluster.url(db) };
    const spawned = await Promise.allSettled([
      spawnCardIssue({ ...CARD_ISSUE_ENV, ...urls(databases[0], false) }, 180_000),
      spawnClientRegistration({ ...REGISTRATION_ENV, ...urls(databases[1], false) }, 180_000),
      spawnCardIssue({ ...CARD_ISSUE_ENV, ...urls(databases[2], true) }, 180_000),
      spawnClientRegistration({ ...REGISTRATION_ENV, ...urls(databases[3], true) }, 180_000),
    ]);
    const children = spawned.flatMap((s) => (s.status === 'fulfilled' ? [s.value] : []));
    if (children.length < spawned.length) {
      await Promise.all(children.map((child) => child.stop('SIGKILL')));
      throw (spawned.find((s) => s.status === 'rejected') as PromiseRejectedResult).reason;
    }
    const [cardDirect, clientsDirect, cardPooled, clientsPooled] = children;
    progress('services started');
    for (const [i, child] of [cardDirect, cardPooled].entries()) {
      const owners: Owners = {
        plain: await createUser(child.url),
        keyed: await createUser(child.url),
        holder: await createUser(child.url),
      };
      const receiver = await startWebhookReceiver();
      receivers.push(receiver);
      const subscribed = await sendJson(`${child.url}/api/v1/webhook-subscriptions`, 'POST', {
        url: receiver.url,
        eventTypes: ['card_issue.created', 'card_issue.failed', 'card_issue.status_changed'],
      });
      expect(subscribed.status).toBe(201);
      receiver.secrets = [(subscribed.body as { secret: string }).secret];
      targets.push({
        service: 'card-issue',
        route: routes[i],
        database: databases[i * 2],
        child,
        load: new CardIssueLoad(child.url, owners),
        receiver,
      });
    }
    for (const [i, child] of [clientsDirect, clientsPooled].entries())
      targets.push({
        service: 'client-registration',
        route: routes[i],
        database: databases[i * 2 + 1],
        child,
        load: new RegistrationLoad(child.url),
      });
  }, 420_000);

  afterAll(async () => {
    for (const target of targets) await target.load.stop();
    await Promise.all(targets.map((t) => t.child.stop('SIGKILL')));
    for (const receiver of receivers) await receiver.stop();
    await pgbouncer?.stop();
    await cluster?.stop();
    figures.print();
  }, 120_000);

  /** Fails with the end of its log when a service process has exited. */
  function expectAllRunning(): void {
    for (const t of targets) {
      if (t.child.proc.exitCode !== null || t.child.proc.signalCode !== null)
        throw new Error(
          `${t.service} (${t.route}) exited (${t.child.proc.exitCode ?? t.child.proc.signalCode}):\n` +
            t.child.output().slice(-4_000),
        );
    }
  }

  /**
   * Runs the load, does `event` once every service has written, waits for every service to
   * write again (then a little more), stops the load, lets `after` restore the cluster, then
   * checks each service's database on the leader and records a row per service.
   */
  async function underLoad(
    scenario: string,
    /** Does the event; returns its instant when that is not when it was called. */
    event: () => Promise<number | void>,
    options: { strict: boolean; after?: () => Promise<void>; mode: string },
  ): Promise<void> {
    const before = targets.map((t) => t.load.answers.length);
    const logBefore = targets.map((t) => t.child.output().length);
    const okSince = (t: Target, i: number, from: number) =>
      t.load.answers
        .slice(before[i])
        .filter((a) => a.status >= 200 && a.status < 300 && a.sentAt >= from).length;
    for (const t of targets) t.load.start();
    let eventAt = 0;
    let waited = false;
    let probe: ClusterProbe | undefined;
    try {
      await eventually(
        () => Promise.resolve(targets.every((t, i) => okSince(t, i, 0) >= 5)),
        60_000,
        50,
      );
      progress(`${scenario}: under load, leader ${await cluster.leader()}`);
      probe = startProbe(await cluster.writableServer());
      eventAt = Date.now();
      eventAt = (await event()) ?? eventAt;
      progress(`${scenario}: event done in ${formatMs(Date.now() - eventAt)}`);
      // Every service writes again once the cluster takes writes again (a probe saw them
      // interrupted or moved, then taken); after 30 s without such a probe, once each wrote.
      waited = await eventually(
        () => {
          expectAllRunning();
          const since = probe!.backAt ?? (Date.now() - eventAt > 30_000 ? eventAt : null);
          return Promise.resolve(
            since !== null && targets.every((t, i) => okSince(t, i, since) >= 1),
          );
        },
        60_000,
        50,
      ).then(
        () => true,
        () => false,
      );
      progress(
        `${scenario}: every service wrote again: ${waited}, leader ${await cluster.leader()}`,
      );
      // The load runs 2 s more once every service writes again: the stragglers' answers come in.
      await sleep(2_000);
    } finally {
      await probe?.stop();
      for (const t of targets) await t.load.stop();
    }
    progress(`${scenario}: load stopped`);
    try {
      await options.after?.();
    } catch (error) {
      throw new Error(
        `${(error as Error).message}\n` +
          cluster.nodes
            .map((n) => `${n.name}:\n${cluster.patroniOutput(n).slice(-3_000)}`)
            .join('\n'),
      );
    }
    progress(`${scenario}: cluster restored: ${JSON.stringify(await cluster.members())}`);
    expectAllRunning();

    const failures: string[] = [];
    const checksBegan = Date.now();
    for (const [i, t] of targets.entries()) {
      const answers = t.load.answers.slice(before[i]);
      const recovery = recoveryOf(answers, eventAt);
      const url = cluster.url(t.database);
      const findings: Findings =
        t.service === 'card-issue'
          ? await checkCardIssue(
              url,
              t.load.answers,
              (t.load as CardIssueLoad).owners,
              t.receiver!,
              options.strict,
            )
          : await checkRegistration(url, t.load.answers, options.strict);
      // Any answer of the scenario, also of a write sent before the event.
      const errors = [...new Set(answers.map((a) => a.status))].filter(
        (s) => s >= 500 && s !== 503,
      );
      if (errors.length)
        failures.push(
          `${t.service} (${t.route}): ${errors.join(', ')}: ` +
            answers
              .filter((a) => errors.includes(a.status))
              .slice(0, 3)
              .map((a) => `${a.kind}: ${a.message}`)
              .join(' | ') +
            '\n' +
            t.child
              .output()
              .slice(logBefore[i])
              .split('\n')
              .filter((line) => /Unexpected error/.test(line))
              .slice(0, 5)
              .join('\n'),
        );
      const sentAfter = answers.filter((a) => a.sentAt >= eventAt).length;
      const stacks = t.child
        .output()
        .slice(logBefore[i])
        .split('\n')
        .filter((line) => line.includes('"stack"'))
        .map((line) => {
          const { msg, err } = JSON.parse(line) as { msg?: string; err?: { message?: string } };
          return `${msg} (${err?.message ?? ''})`;
        });
      if (stacks.length)
        progress(`${scenario}: ${t.service} (${t.route}) logged stacks: ${stacks.join(' | ')}`);
      figures.add({
        scenario: `${scenario}: ${t.service}`,
        database: `${options.mode}, ${t.route}`,
        sent: `${answers.length} writes (${sentAfter} from the event on)`,
        answered: formatStatuses(recovery.byStatus) || '-',
        stored:
          `${findings.acknowledged - findings.lost.length} of ${findings.acknowledged} acknowledged so far; ` +
          `${findings.duplicates.length} duplicates, ${findings.stuckKeys} keys stuck, ` +
          `${findings.badMoves.length} bad moves, ${findings.undelivered.length} undelivered; ` +
          `${findings.extra} stored without a 2xx`,
        lost: findings.lost.length,
        orphans: findings.orphans,
        recovered: waited
          ? `no 2xx for ${formatMs(recovery.longestGapMs)} at most; ` +
            (probe?.backAt
              ? `HAProxy took writes again ${formatMs(probe.backAt - eventAt)} after the event, ` +
                `the first 2xx of a write sent from then ${afterBack(answers, probe.backAt)} later; `
              : 'no interruption seen through HAProxy; ') +
            `first 2xx of a write sent after the event: ${recovery.firstOkMs === null ? 'none' : formatMs(recovery.firstOkMs)}`
          : `no 2xx within 60 s of the event (longest gap ${formatMs(recovery.longestGapMs)})`,
      });
      if (!waited) failures.push(`${t.service} (${t.route}): no 2xx within 60 s of the event`);
      if (findings.lost.length && !options.strict)
        console.log(
          `${scenario}: ${t.service} (${t.route}) lost ${findings.lost.length}: ${findings.lost.join(', ')}`,
        );
    }
    progress(`${scenario}: checked in ${formatMs(Date.now() - checksBegan)}`);
    expect(failures).toEqual([]);
  }

  /** From `at` to the first 2xx of a write sent from then on. */
  function afterBack(answers: Answer[], at: number): string {
    const first = recoveryOf(answers, at).firstOkMs;
    return first === null ? 'never' : formatMs(first);
  }

  interface ClusterProbe {
    /**
     * When a new connection through HAProxy first reached a writable server after writes were
     * interrupted (a probe found none) or moved (another server took them); null until then.
     */
    backAt: number | null;
    stop(): Promise<void>;
  }

  /** A new connection through HAProxy every 100 ms: which server takes writes. */
  function startProbe(before: number | null): ClusterProbe {
    let running = true;
    let interrupted = false;
    const probe: ClusterProbe = {
      backAt: null,
      stop: async () => {
        running = false;
        await loop;
      },
    };
    const loop = (async () => {
      while (running && probe.backAt === null) {
        const port = await cluster.writableServer();
        if (port === null) interrupted = true;
        else if (interrupted || port !== before) probe.backAt = Date.now();
        await sleep(100);
      }
    })();
    return probe;
  }

  const leaderNode = async (): Promise<HaNode> => {
    const name = await cluster.leader();
    if (!name) throw new Error(`no leader: ${JSON.stringify(await cluster.members())}`);
    return cluster.node(name);
  };

  it('(c) planned switchover through Patroni', async () => {
    await underLoad(
      'Planned switchover (Patroni REST POST /switchover)',
      async () => {
        const res = await cluster.switchover();
        expect(res.status).toBe(200);
      },
      { strict: true, mode: 'synchronous', after: () => cluster.waitHealthy() },
    );
  });

  it("(a) SIGKILL of the leader's postmaster", async () => {
    await underLoad(
      "SIGKILL of the leader's postmaster",
      async () => cluster.killPostmaster(await leaderNode()),
      { strict: true, mode: 'synchronous', after: () => cluster.waitHealthy() },
    );
  });

  it("(b) SIGKILL of the leader's whole node (Patroni and PostgreSQL)", async () => {
    let killed: HaNode | undefined;
    await underLoad(
      "SIGKILL of the leader's whole node",
      async () => {
        killed = await leaderNode();
        await cluster.killNode(killed);
      },
      {
        strict: true,
        mode: 'synchronous',
        after: async () => {
          cluster.startPatroni(killed!);
          await cluster.waitHealthy(120_000);
        },
      },
    );
  });

  it('whole-node kill in asynchronous mode: reports the acknowledged writes lost', async () => {
    await cluster.patchConfig({ synchronous_mode: false });
    await eventually(
      async () => !(await cluster.members()).some((m) => m.role === 'sync_standby'),
      30_000,
      250,
    );
    let killed: HaNode | undefined;
    let lag = 0;
    await underLoad(
      "SIGKILL of the leader's whole node, asynchronous, replication stopped 0.5 s before",
      async () => {
        killed = await leaderNode();
        // The leader's WAL senders stop for half a second, as a broken link to the replicas
        // would: the leader acknowledges commits that no replica has.
        await cluster.pauseReplication();
        await sleep(500);
        lag = await cluster.replicationLagBytes();
        const killedAt = Date.now();
        await cluster.killNode(killed);
        return killedAt;
      },
      {
        strict: false,
        mode: 'asynchronous',
        after: () => {
          progress(`replicas were ${lag} bytes of WAL behind at the kill`);
          cluster.startPatroni(killed!);
          return Promise.resolve();
        },
      },
    );
  });
});
