import {
  execForm,
  type Instruction,
  parseDockerfile,
  type Stage,
  stagesOf,
} from './lib/dockerfile';
import { exitCodeOf, startHealthServer } from './lib/health-server';
import { readText, repoPath } from './lib/repo';

const SERVICES = { 'card-issue': 3000, 'client-registration': 3001 } as const;

function args(stage: Stage, keyword: string): string[] {
  return stage.instructions.filter((i) => i.keyword === keyword).map((i) => i.args);
}

function last(stage: Stage, keyword: string): Instruction | undefined {
  return stage.instructions.filter((i) => i.keyword === keyword).at(-1);
}

describe('Dockerfile parsing', () => {
  it('joins continuation lines, skips comments and resolves ARG defaults in FROM', () => {
    const stages = stagesOf(
      parseDockerfile(
        [
          'ARG BASE=node:24-bookworm-slim',
          '# a comment',
          'FROM ${BASE} AS build',
          'RUN a \\',
          '  # inside',
          '  && b',
          'FROM $BASE',
          'USER 1000',
        ].join('\n'),
      ),
    );
    expect(stages.map((s) => [s.image, s.name])).toEqual([
      ['node:24-bookworm-slim', 'build'],
      ['node:24-bookworm-slim', undefined],
    ]);
    expect(args(stages[0], 'RUN')).toEqual(['a && b']);
  });
});

describe.each(Object.entries(SERVICES))('apps/%s/Dockerfile', (name, port) => {
  const stages = stagesOf(parseDockerfile(readText(repoPath('apps', name, 'Dockerfile'))));
  const build = stages.find((s) => s.name === 'build');
  const runtime = stages[stages.length - 1];

  it('is multi-stage on the Node 24 LTS Debian image of .node-version, pinned by digest', () => {
    expect(stages.length).toBeGreaterThanOrEqual(2);
    const version = readText(repoPath('.node-version')).trim();
    expect(version).toMatch(/^24\.\d+\.\d+$/);
    for (const stage of stages) {
      expect(stage.image).toMatch(/^node:[\d.]+-bookworm-slim@sha256:[0-9a-f]{64}$/);
      expect(stage.image.startsWith(`node:${version}-`)).toBe(true);
    }
  });

  it('builds the app with Nx from the lockfile', () => {
    expect(build).toBeDefined();
    const run = args(build!, 'RUN').join('\n');
    expect(run).toMatch(/^npm ci\b/m);
    expect(run).toContain(`npx nx build ${name}`);
  });

  it('installs only production dependencies from the generated dist package files', () => {
    expect(args(runtime, 'COPY')).toContainEqual(
      expect.stringMatching(
        new RegExp(
          `^--from=build .*dist/apps/${name}/package\\.json .*dist/apps/${name}/package-lock\\.json`,
        ),
      ),
    );
    expect(args(runtime, 'RUN').join('\n')).toMatch(/npm ci --omit=dev/);
    expect(args(runtime, 'ENV').join(' ')).toMatch(/\bNODE_ENV=production\b/);
  });

  it('runs as a non-root user', () => {
    const user = last(runtime, 'USER');
    expect(user).toBeDefined();
    const [who] = user!.args.split(':');
    expect(['root', '0', '']).not.toContain(who.trim());
    const userLine = user!.line;
    const cmdLine = last(runtime, 'CMD')!.line;
    expect(userLine).toBeLessThan(cmdLine);
  });

  it('exposes its port and checks /api/health with node fetch', () => {
    expect(args(runtime, 'EXPOSE')).toEqual([String(port)]);
    const healthcheck = last(runtime, 'HEALTHCHECK');
    expect(healthcheck).toBeDefined();
    const [, command = ''] = /\bCMD\s+(.*)$/s.exec(healthcheck!.args) ?? [];
    const exec = execForm(command);
    expect(exec?.slice(0, 2)).toEqual(['node', '-e']);
    expect(exec?.[2]).toMatch(/fetch\(.*\/api\/health/);
    expect(exec?.[2]).toContain(`'${port}'`);
  });

  it('its HEALTHCHECK command passes on 200 and fails on 503, under BASE_PATH too', async () => {
    const [, command = ''] = /\bCMD\s+(.*)$/s.exec(last(runtime, 'HEALTHCHECK')!.args) ?? [];
    const [node, ...rest] = execForm(command)!;
    expect(node).toBe('node');
    const run = [process.execPath, ...rest];
    let status = 200;
    for (const basePath of ['', '/prefix']) {
      const server = await startHealthServer(`${basePath}/api/health`, () => status);
      try {
        const env = { PORT: String(server.port), BASE_PATH: basePath || undefined };
        status = 200;
        expect(await exitCodeOf(run, env)).toBe(0);
        status = 503;
        expect(await exitCodeOf(run, env)).toBe(1);
      } finally {
        await server.close();
      }
    }
  });

  it('starts node main.js in exec form', () => {
    expect(execForm(last(runtime, 'CMD')!.args)).toEqual(['node', 'main.js']);
    expect(last(runtime, 'ENTRYPOINT')).toBeUndefined();
  });
});

describe('.dockerignore', () => {
  it('keeps dependencies, build output and local data out of the build context', () => {
    const lines = readText(repoPath('.dockerignore'))
      .split('\n')
      .map((l) => l.trim())
      .filter((l) => l && !l.startsWith('#'));
    expect(lines).toEqual(
      expect.arrayContaining(['.git', '**/node_modules', 'dist', '.nx', '.data', '.env']),
    );
    // The build stage needs the lockfile, the npm settings and the sources.
    for (const needed of ['package-lock.json', '.npmrc', 'apps', 'libs', '*.json']) {
      expect(lines).not.toContain(needed);
    }
  });
});
