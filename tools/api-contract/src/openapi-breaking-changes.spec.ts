import { readFileSync } from 'node:fs';
import path from 'node:path';
import {
  acknowledgements,
  breakingChanges,
  compareDocuments,
  documentAtRevision,
  gateMessage,
  readChangelog,
  revisionExists,
  semanticVersion,
  unacknowledged,
  versionProblem,
} from './lib/breaking-changes';
import {
  buildAllDocuments,
  documentPath,
  OpenApiDocument,
  REPO_ROOT,
} from './lib/openapi-documents';
import { DOCUMENT_NAMES, DocumentName } from './lib/services';

function committed(name: DocumentName): OpenApiDocument {
  return JSON.parse(readFileSync(documentPath(name), 'utf8')) as OpenApiDocument;
}

const copy = (document: OpenApiDocument): OpenApiDocument =>
  JSON.parse(JSON.stringify(document)) as OpenApiDocument;

interface Parameter {
  name: string;
  in: string;
  required?: boolean;
  schema?: Record<string, unknown>;
  description?: string;
}
type Operations = Record<string, Record<string, { parameters?: Parameter[] }>>;

/** The gate on a seeded copy of the committed card-issue document (issue 16 item 5). */
describe('breaking-change gate: seeded changes in a copy', () => {
  const before = committed('card-issue');
  const LIST = '/api/v1/card-issue/client/{clientId}';

  it('passes the committed document unchanged, and an added optional parameter', () => {
    expect(breakingChanges('card-issue', before, copy(before))).toEqual([]);
    const after = copy(before);
    (after.paths as Operations)[LIST].get.parameters?.push({
      name: 'status',
      in: 'query',
      required: false,
      schema: { type: 'string' },
      description: 'Only requests in this status',
    });
    expect(breakingChanges('card-issue', before, after)).toEqual([]);
  });

  it('fails on a removed path', () => {
    const after = copy(before);
    delete after.paths['/api/v1/card-issue/{id}'];
    expect(breakingChanges('card-issue', before, after)).toEqual([
      expect.objectContaining({
        key: 'card-issue remove #/paths/~1api~1v1~1card-issue~1{id}/get',
        description: expect.stringContaining('GET /api/v1/card-issue/{id}'),
      }),
    ]);
  });

  it('fails on a narrowed type (a smaller maximum of limit)', () => {
    const after = copy(before);
    const limit = (after.paths as Operations)[LIST].get.parameters?.find((p) => p.name === 'limit');
    if (!limit?.schema) throw new Error('no limit parameter');
    limit.schema.maximum = 10;
    expect(breakingChanges('card-issue', before, after).map((change) => change.key)).toEqual([
      expect.stringMatching(/^card-issue replace #\/paths\/.*\/parameters\/\d+\/schema\/maximum$/),
    ]);
  });

  it('fails on a new required input (a required query parameter, a required body field)', () => {
    const after = copy(before);
    (after.paths as Operations)[LIST].get.parameters?.push({
      name: 'branch',
      in: 'query',
      required: true,
      schema: { type: 'string' },
      description: 'Branch',
    });
    const schemas = (after.components as { schemas: Record<string, Record<string, unknown>> })
      .schemas;
    const status = schemas.UpdateStatusDto;
    status.properties = { ...(status.properties as object), reason: { type: 'string' } };
    status.required = [...((status.required as string[]) ?? []), 'reason'];
    const changes = breakingChanges('card-issue', before, after).map((change) => change.key);
    expect(changes).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^card-issue add #\/paths\/.*client.*\/get\/parameters\/\d+$/),
        expect.stringMatching(/^card-issue add #\/paths\/.*status\/patch\/requestBody\/.*required/),
      ]),
    );
  });

  it('lets a change through once the changelog acknowledges it, and says how to', () => {
    const after = copy(before);
    delete after.paths['/api/v1/card-issue/{id}'];
    const changes = breakingChanges('card-issue', before, after);
    expect(unacknowledged(changes, '# changelog\n')).toEqual(changes);
    const message = gateMessage(changes, 'in a test');
    expect(message).toContain(
      '- breaking card-issue remove #/paths/~1api~1v1~1card-issue~1{id}/get: <why>',
    );
    const changelog =
      '## 3.0\n\n- breaking card-issue remove #/paths/~1api~1v1~1card-issue~1{id}/get: use the list\n';
    expect(unacknowledged(changes, changelog)).toEqual([]);
    // Another document's acknowledgement of the same pointer does not count.
    expect(
      unacknowledged(changes, changelog.replace('card-issue remove', 'user-api remove')),
    ).toEqual(changes);
  });

  it('reads the acknowledgement lines of openapi/CHANGELOG.md', () => {
    expect(acknowledgements(readChangelog()).size).toBeGreaterThan(0);
  });
});

/** The version rule of docs/versioning.md on seeded copies of the committed card-issue document. */
describe('info.version in step with the change', () => {
  const before = committed('card-issue');
  const [major, minor] = semanticVersion(before.info.version) ?? [NaN, NaN];
  const LIST = '/api/v1/card-issue/client/{clientId}';

  const withVersion = (document: OpenApiDocument, version: string): OpenApiDocument => ({
    ...document,
    info: { ...document.info, version },
  });
  const problem = (after: OpenApiDocument) =>
    versionProblem(
      'card-issue',
      before,
      after,
      compareDocuments('card-issue', before, after).level,
    );

  it('writes every committed document as MAJOR.MINOR.PATCH', () => {
    for (const name of DOCUMENT_NAMES) {
      expect({ name, version: semanticVersion(committed(name).info.version) }).toEqual({
        name,
        version: expect.any(Array),
      });
    }
    expect(problem(withVersion(before, `${major}.${minor}`))).toMatch(/is not MAJOR.MINOR.PATCH/);
  });

  it('asks nothing of a change of texts, and refuses a version that goes down', () => {
    const after = copy(before);
    after.paths[LIST].get.summary = 'Another summary';
    (after.paths as Operations)[LIST].get.parameters?.forEach((p) => (p.description = 'new'));
    expect(compareDocuments('card-issue', before, after).level).toBe('none');
    expect(problem(after)).toBeUndefined();
    expect(problem(withVersion(after, `${major}.${minor}.1`))).toBeUndefined();
    expect(problem(withVersion(after, `${major - 1}.9.9`))).toMatch(/went down/);
  });

  it('asks a new minor version of an addition', () => {
    const after = copy(before);
    (after.paths as Operations)[LIST].get.parameters?.push({
      name: 'status',
      in: 'query',
      required: false,
      schema: { type: 'string' },
    });
    expect(compareDocuments('card-issue', before, after).level).toBe('minor');
    expect(problem(after)).toContain(`must be at least ${major}.${minor + 1}.0`);
    expect(problem(withVersion(after, `${major}.${minor + 1}.0`))).toBeUndefined();
    expect(problem(withVersion(after, `${major + 1}.0.0`))).toBeUndefined();
  });

  it('asks a new major version of a breaking change, acknowledged or not', () => {
    const after = copy(before);
    delete after.paths['/api/v1/card-issue/{id}'];
    expect(compareDocuments('card-issue', before, after).level).toBe('major');
    expect(problem(after)).toContain(`must be at least ${major + 1}.0.0, since the change breaks`);
    expect(problem(withVersion(after, `${major}.${minor + 1}.0`))).toContain(`${major + 1}.0.0`);
    expect(problem(withVersion(after, `${major + 1}.0.0`))).toBeUndefined();
  });

  it('steps from an earlier version written without its patch (2.0 -> 2.1.0)', () => {
    const earlier = withVersion(before, `${major}.${minor}`);
    expect(versionProblem('card-issue', earlier, before, 'none')).toBeUndefined();
    expect(versionProblem('card-issue', earlier, before, 'minor')).toContain(
      `${major}.${minor + 1}.0`,
    );
  });
});

/** The gate itself on the real documents. */
describe('breaking-change gate: the documents of this revision', () => {
  let fromCode: Record<DocumentName, OpenApiDocument>;

  beforeAll(async () => {
    fromCode = await buildAllDocuments();
  }, 180_000);

  it.each(DOCUMENT_NAMES)(
    '%s: the document the code serves breaks nothing the committed one promised (or it is acknowledged), and its version steps with it',
    (name) => {
      const { breaking, level } = compareDocuments(name, committed(name), fromCode[name]);
      const changes = unacknowledged(breaking, readChangelog());
      if (changes.length > 0) {
        throw new Error(gateMessage(changes, 'between the committed document and the code'));
      }
      expect(versionProblem(name, committed(name), fromCode[name], level)).toBeUndefined();
    },
  );

  const base = process.env.OPENAPI_BASE_REF ?? 'HEAD~1';
  const haveBase = revisionExists(base);

  it(`compares with the committed documents at ${base} (a git checkout with that revision)`, () => {
    // CI clones with history; a checkout without the base revision has nothing to compare with.
    if (process.env.CI) expect(haveBase).toBe(true);
  });

  it.each(DOCUMENT_NAMES)(
    `%s: the committed document breaks nothing its version at ${base} promised (or it is acknowledged), and its version steps with it`,
    (name) => {
      if (!haveBase) return;
      const relative = path.relative(REPO_ROOT, documentPath(name));
      const before = documentAtRevision(base, relative);
      if (!before) return; // a new document
      const { breaking, level } = compareDocuments(name, before, committed(name));
      const changes = unacknowledged(breaking, readChangelog());
      if (changes.length > 0) {
        throw new Error(gateMessage(changes, `since ${base}`));
      }
      expect(versionProblem(name, before, committed(name), level)).toBeUndefined();
    },
  );
});
