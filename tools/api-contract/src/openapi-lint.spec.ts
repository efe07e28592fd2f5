import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { documentPath, OpenApiDocument, repoPath, REPO_ROOT } from './lib/openapi-documents';
import { DOCUMENT_NAMES, DocumentName, REFERENCE_DOCUMENT_NAMES } from './lib/services';

interface Operation {
  security?: Record<string, string[]>[];
  responses?: Record<string, unknown>;
}

function committedDocument(name: DocumentName): OpenApiDocument {
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
    for (const name of DOCUMENT_NAMES) expect(output).toContain(`openapi/${name}.json`);
    expect(output).toContain('Your API descriptions are valid');
    expect(output).not.toMatch(/You have \d+ warnings?/);
  });

  // Stands in for redocly's operation-4xx-response, turned off for the health check and probes only.
  it.each(DOCUMENT_NAMES)('%s: every operation but the health check documents a 4XX', (name) => {
    const without4xx = operations(committedDocument(name))
      .filter(([key]) => !/^GET \/api\/health(\/live|\/ready)?$/.test(key))
      .filter(
        ([, operation]) => !Object.keys(operation.responses ?? {}).some((code) => /^4/.test(code)),
      )
      .map(([key]) => key);
    expect(without4xx).toEqual([]);
  });

  it.each(REFERENCE_DOCUMENT_NAMES)(
    '%s: declares the X-secret apiKey scheme and requires it on every operation',
    (name) => {
      const document = committedDocument(name);
      const schemes = (document.components as { securitySchemes: Record<string, unknown> })
        .securitySchemes;
      expect(schemes['X-secret']).toMatchObject({ type: 'apiKey', in: 'header', name: 'X-secret' });
      const unsecured = operations(document)
        .filter(([, operation]) => !(operation.security ?? []).some((r) => 'X-secret' in r))
        .map(([key]) => key);
      expect(unsecured).toEqual([]);
    },
  );

  it.each(['card-issue', 'client-registration'] as DocumentName[])(
    '%s: its own API declares no X-secret (the reference services have their own documents)',
    (name) => {
      const document = committedDocument(name);
      expect(
        operations(document).filter(([, operation]) =>
          (operation.security ?? []).some((requirement) => 'X-secret' in requirement),
        ),
      ).toEqual([]);
      expect(Object.keys(document.paths).filter((route) => /-api/.test(route))).toEqual([]);
    },
  );

  it.each(['card-issue', 'client-registration'] as DocumentName[])(
    '%s: the bearer JWT guards exactly the API operations, each with its scopes',
    (name) => {
      const document = committedDocument(name);
      const schemes = (document.components as { securitySchemes: Record<string, unknown> })
        .securitySchemes;
      expect(schemes.bearer).toMatchObject({ type: 'http', scheme: 'bearer', bearerFormat: 'JWT' });
      for (const [key, operation] of operations(document)) {
        const api = /^[A-Z]+ \/api\/(v1\/card-issue|v1\/webhook-subscriptions|clients)/.test(key);
        const secured = (operation.security ?? []).some((requirement) => 'bearer' in requirement);
        expect({ operation: key, secured }).toEqual({ operation: key, secured: api });
        if (!api) continue;
        const scopes = (operation as { 'x-required-scopes'?: string[] })['x-required-scopes'];
        expect({ operation: key, scopes }).toEqual({
          operation: key,
          scopes: [expect.stringMatching(/^(card-issue|clients):(read|write|status|webhooks)$/)],
        });
        expect(Object.keys(operation.responses ?? {})).toEqual(
          expect.arrayContaining(['401', '403']),
        );
      }
    },
  );
});
