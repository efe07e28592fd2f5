import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parse as parseYaml } from 'yaml';
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

/** Redocly's CLI on the documents with the given arguments, from `cwd`. */
function redocly(args: string[], cwd = REPO_ROOT) {
  return spawnSync(process.execPath, [repoPath('node_modules/@redocly/cli/bin/cli.js'), ...args], {
    cwd,
    encoding: 'utf8',
    env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' },
    timeout: 120_000,
  });
}

interface LintProblem {
  ruleId: string;
  severity: 'error' | 'warn';
  message: string;
  location: { source: { ref: string }; pointer: string }[];
}

describe('OpenAPI documents: lint', () => {
  // Redocly's `recommended` ruleset as shipped: a configuration of its own in an empty
  // directory, so neither redocly.yaml nor the ignore file next to it can relax anything.
  it("pass Redocly's stock `recommended` ruleset without an error", () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'redocly-recommended-'));
    try {
      writeFileSync(path.join(dir, 'redocly.yaml'), 'extends:\n  - recommended\ntelemetry: off\n');
      const result = redocly(
        ['lint', '--format=json', ...DOCUMENT_NAMES.map((name) => documentPath(name))],
        dir,
      );
      // One JSON report per document, one after the other.
      const reports = result.stdout
        .split(/(?<=\n\})(?=\{\n {2}"totals")/)
        .filter((text) => text.trim())
        .map((text) => JSON.parse(text) as { problems: LintProblem[] });
      expect(reports).toHaveLength(DOCUMENT_NAMES.length);
      const errors = reports
        .flatMap((report) => report.problems)
        .filter((problem) => problem.severity === 'error')
        .map(
          (problem) =>
            `${path.basename(problem.location[0]?.source.ref ?? '?')} ${problem.location[0]?.pointer}: ` +
            `${problem.ruleId}: ${problem.message}`,
        );
      expect(errors).toEqual([]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('lint with the `recommended` ruleset as it stands (redocly.yaml turns no rule off)', () => {
    const config = parseYaml(readFileSync(repoPath('redocly.yaml'), 'utf8')) as Record<
      string,
      unknown
    >;
    expect(config.extends).toEqual(['recommended']);
    expect(config.rules).toBeUndefined();
    expect(Object.keys(config.apis as object).sort()).toEqual([...DOCUMENT_NAMES].sort());
  });

  it('pass `redocly lint` (npm run openapi:lint) without a warning not acknowledged', () => {
    const result = redocly(['lint', '--format=stylish']);
    const output = `${result.stdout}\n${result.stderr}`;
    if (result.status !== 0) {
      throw new Error(
        `redocly lint failed (exit ${result.status}). Every operation declares its security ` +
          '(`security: []` for a public one).\n' +
          output,
      );
    }
    for (const name of DOCUMENT_NAMES) expect(output).toContain(`openapi/${name}.json`);
    expect(output).toContain('Your API descriptions are valid');
    expect(output).not.toMatch(/You have \d+ warnings?/);
  });

  // Redocly's operation-4xx-response, also on the operations whose warnings are acknowledged.
  it.each(DOCUMENT_NAMES)('%s: every operation documents a 4XX', (name) => {
    const without4xx = operations(committedDocument(name))
      .filter(
        ([, operation]) => !Object.keys(operation.responses ?? {}).some((code) => /^4/.test(code)),
      )
      .map(([key]) => key);
    expect(without4xx).toEqual([]);
  });

  it.each(['card-issue', 'client-registration'] as DocumentName[])(
    '%s: the health check and the probes declare that they are public (`security: []`)',
    (name) => {
      const health = operations(committedDocument(name)).filter(([key]) =>
        /^GET \/api\/health/.test(key),
      );
      expect(health.map(([key, operation]) => [key, operation.security])).toEqual([
        ['GET /api/health', []],
        ['GET /api/health/live', []],
        ['GET /api/health/ready', []],
      ]);
    },
  );

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
