import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { documentPath, OpenApiDocument, repoPath, REPO_ROOT } from './lib/openapi-documents';
import { SERVICE_NAMES, ServiceName } from './lib/services';

interface Operation {
  security?: Record<string, string[]>[];
  responses?: Record<string, unknown>;
}

function committedDocument(name: ServiceName): OpenApiDocument {
  return JSON.parse(readFileSync(documentPath(name), 'utf8')) as OpenApiDocument;
}

function operations(document: OpenApiDocument): [string, Operation][] {
  return Object.entries(document.paths).flatMap(([route, item]) =>
    Object.entries(item as Record<string, Operation>).map(
      ([method, operation]) =>
        [`${method.toUpperCase()} ${route}`, operation] as [string, Operation],
    ),
  );
}

describe('OpenAPI documents: lint', () => {
  it('pass `redocly lint` with the committed ruleset (redocly.yaml)', () => {
    const result = spawnSync(
      process.execPath,
      [repoPath('node_modules/@redocly/cli/bin/cli.js'), 'lint', '--format=stylish'],
      {
        cwd: REPO_ROOT,
        encoding: 'utf8',
        env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' },
        timeout: 120_000,
      },
    );
    const output = `${result.stdout}\n${result.stderr}`;
    if (result.status !== 0) {
      throw new Error(
        `redocly lint failed (exit ${result.status}). A new unauthenticated operation must be ` +
          'added to the security-defined exceptions of redocly.yaml.\n' +
          output,
      );
    }
    for (const name of SERVICE_NAMES) expect(output).toContain(`openapi/${name}.json`);
    expect(output).toContain('Your API descriptions are valid');
    expect(output).not.toMatch(/You have \d+ warnings?/);
  });

  // Stands in for redocly's operation-4xx-response, turned off for the health check only.
  it.each(SERVICE_NAMES)('%s: every operation but the health check documents a 4XX', (name) => {
    const without4xx = operations(committedDocument(name))
      .filter(([key]) => key !== 'GET /api/health')
      .filter(
        ([, operation]) => !Object.keys(operation.responses ?? {}).some((code) => /^4/.test(code)),
      )
      .map(([key]) => key);
    expect(without4xx).toEqual([]);
  });

  it('X-secret guards exactly the downstream reference services of card-issue', () => {
    const document = committedDocument('card-issue');
    const schemes = (document.components as { securitySchemes: Record<string, unknown> })
      .securitySchemes;
    expect(schemes['X-secret']).toMatchObject({ type: 'apiKey', in: 'header', name: 'X-secret' });
    for (const [key, operation] of operations(document)) {
      const downstream = /^[A-Z]+ \/(user-api|operation-api|operation-api-v2|branch-api)\//.test(
        key,
      );
      const secured = (operation.security ?? []).some((requirement) => 'X-secret' in requirement);
      expect({ operation: key, secured }).toEqual({ operation: key, secured: downstream });
    }
  });

  it('client-registration declares no credential', () => {
    const document = committedDocument('client-registration');
    expect(operations(document).filter(([, operation]) => operation.security)).toEqual([]);
  });
});
