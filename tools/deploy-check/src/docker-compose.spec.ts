import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { stringify } from 'yaml';
import { composeSchemaErrors, composeSchemaPath } from './lib/compose-schema';
import { dclint } from './lib/dclint';
import { exitCodeOf, startHealthServer } from './lib/health-server';
import { clone, type ParsedYaml, readText, readYaml, repoPath } from './lib/repo';

const SERVICES = { 'card-issue': 3000, 'client-registration': 3001 } as const;
type ServiceName = keyof typeof SERVICES;

const compose = readYaml<ParsedYaml>(repoPath('docker-compose.yml'));
const initScripts = repoPath('tools', 'docker', 'postgres-init');

describe('docker-compose.yml: Compose Specification schema', () => {
  it('uses the schema shipped in dclint', () => {
    expect(existsSync(composeSchemaPath())).toBe(true);
  });

  it('is valid', () => {
    expect(composeSchemaErrors(compose)).toEqual([]);
  });

  it('a misspelled service field fails', () => {
    const spoiled = clone(compose);
    const service = spoiled.services['card-issue'];
    service.helthcheck = service.healthcheck;
    delete service.healthcheck;
    expect(composeSchemaErrors(spoiled)).toContainEqual(
      expect.stringContaining('must NOT have additional properties (helthcheck)'),
    );
  });

  it('a misspelled field deeper down and a wrong type fail', () => {
    const spoiled = clone(compose);
    spoiled.services.postgres.healthcheck.retires = 3;
    spoiled.services['client-registration'].depends_on.postgres.condition = 'service_ready';
    spoiled.services['client-registration'].stop_grace_period = { seconds: 40 };
    const errors = composeSchemaErrors(spoiled);
    expect(errors).toContainEqual(expect.stringContaining('(retires)'));
    expect(errors).toContainEqual(
      expect.stringMatching(/^\/services\/client-registration\/depends_on\/postgres\/condition/),
    );
    expect(errors).toContainEqual(
      expect.stringMatching(/^\/services\/client-registration\/stop_grace_period/),
    );
  });
});

describe('docker-compose.yml: dclint (its default rules)', () => {
  it('reports no problem', () => {
    expect(dclint('docker-compose.yml', repoPath())).toEqual([]);
  });

  it('reports an unbound published port and a service with both build and image', () => {
    const spoiled = clone(compose);
    spoiled.services['client-registration'].ports = ['3001:3001'];
    spoiled.services['card-issue'].image = 'bank-backoffice/card-issue:local';
    const dir = mkdtempSync(path.join(tmpdir(), 'dclint-'));
    try {
      writeFileSync(path.join(dir, 'docker-compose.yml'), stringify(spoiled));
      const errors = dclint('docker-compose.yml', dir).filter((m) => m.type === 'error');
      expect(errors.map((m) => `${m.rule}: ${m.message}`).sort()).toEqual([
        expect.stringMatching(/^no-build-and-image: Service "card-issue" /),
        expect.stringMatching(/^no-unbound-port-interfaces: Service "client-registration" /),
      ]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('docker-compose.yml: PostgreSQL', () => {
  const postgres = compose.services.postgres;

  it('runs PostgreSQL 16, unpublished, with a health check over TCP and an init folder', () => {
    expect(postgres.image).toMatch(/^postgres:16([.-]|$)/);
    expect(postgres.ports).toBeUndefined();
    expect(postgres.healthcheck.test.join(' ')).toMatch(/pg_isready -h 127\.0\.0\.1/);
    expect(postgres.volumes).toContain(
      './tools/docker/postgres-init:/docker-entrypoint-initdb.d:ro',
    );
  });

  it('the init script is valid bash', async () => {
    expect(
      await exitCodeOf([
        'bash',
        '-n',
        repoPath('tools/docker/postgres-init/10-create-databases.sh'),
      ]),
    ).toBe(0);
  });

  it('the init script creates the database each service connects to', () => {
    const script = readText(repoPath('tools/docker/postgres-init/10-create-databases.sh'));
    expect(existsSync(initScripts)).toBe(true);
    for (const name of Object.keys(SERVICES)) {
      const url: string = compose.services[name].environment.DATABASE_URL;
      const match = /^postgres:\/\/([^:]+):[^@]+@postgres:5432\/(\w+)$/.exec(url);
      expect(match).not.toBeNull();
      const [, user, database] = match!;
      expect(user).toBe(database);
      expect(script).toMatch(new RegExp(`create_service_database ${database} `));
    }
  });
});

describe.each(Object.entries(SERVICES) as [ServiceName, number][])(
  'docker-compose.yml: %s',
  (name, port) => {
    const service = compose.services[name];
    const migrate = compose.services[`${name}-migrate`];

    it('is built from its Dockerfile and publishes its port on 127.0.0.1 unless BIND_ADDRESS is set', () => {
      expect(service.build).toEqual({ context: '.', dockerfile: `apps/${name}/Dockerfile` });
      expect(service.image).toBeUndefined();
      expect(existsSync(repoPath(service.build.dockerfile))).toBe(true);
      expect(service.ports).toEqual([
        {
          target: port,
          published: String(port),
          host_ip: '${BIND_ADDRESS:-127.0.0.1}',
          protocol: 'tcp',
        },
      ]);
      expect(service.environment.PORT).toBe(String(port));
    });

    it('starts after PostgreSQL is healthy and its one-shot migration has succeeded', () => {
      expect(migrate.command).toEqual(['node', 'main.js', 'migrate']);
      expect(migrate.image).toBeUndefined();
      expect(migrate.build).toEqual(service.build);
      expect(migrate.ports).toBeUndefined();
      expect(migrate.restart).toBe('no');
      expect(migrate.depends_on).toEqual({ postgres: { condition: 'service_healthy' } });
      expect(migrate.environment.DATABASE_URL).toBe(service.environment.DATABASE_URL);
      expect(service.depends_on).toEqual({
        postgres: { condition: 'service_healthy' },
        [`${name}-migrate`]: { condition: 'service_completed_successfully' },
      });
      expect(service.environment.DB_MIGRATIONS_RUN).toBe('false');
    });

    it('has a health check on /api/health and a grace period for the graceful shutdown', () => {
      expect(service.healthcheck.test[0]).toBe('CMD');
      expect(service.healthcheck.test.join(' ')).toContain(`http://127.0.0.1:${port}/api/health`);
      expect(parseInt(service.stop_grace_period, 10)).toBeGreaterThanOrEqual(30);
    });

    it('its health check command passes on 200 and fails on 503', async () => {
      const [, node, ...rest] = service.healthcheck.test as string[];
      expect(node).toBe('node');
      let status = 200;
      const server = await startHealthServer('/api/health', () => status);
      try {
        // The same command, pointed at a loopback stand-in instead of the container's port.
        const run = [
          process.execPath,
          ...rest.map((a) => a.replace(`:${port}/`, `:${server.port}/`)),
        ];
        expect(await exitCodeOf(run)).toBe(0);
        status = 503;
        expect(await exitCodeOf(run)).toBe(1);
      } finally {
        await server.close();
      }
    });

    it('takes its secrets from the environment with development defaults only', () => {
      expect(service.environment.DATABASE_URL).toMatch(/\$\{[A-Z_]+_DB_PASSWORD:-[^}]+\}/);
      if (name === 'card-issue') {
        // The images run with NODE_ENV=production: the default must pass its X_SECRET rules.
        expect(service.environment.X_SECRET).toBe('${X_SECRET:-compose-development-only-x-secret}');
      }
    });
  },
);
