import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import {
  buildAllDocuments,
  documentPath,
  OpenApiDocument,
  REPO_ROOT,
  serializeDocument,
  typesOf,
  typesPath,
} from './lib/openapi-documents';
import { DOCUMENT_NAMES, DocumentName } from './lib/services';

/** Fails with the first differing line and the command that brings the file up to date. */
function expectUpToDate(file: string, fromCode: string): void {
  const relative = path.relative(REPO_ROOT, file);
  const committed = existsSync(file) ? readFileSync(file, 'utf8') : undefined;
  if (committed === fromCode) return;
  if (committed === undefined) {
    throw new Error(`${relative} is missing: run \`npm run openapi\` and commit the result`);
  }
  const a = committed.split('\n');
  const b = fromCode.split('\n');
  let line = 0;
  while (line < Math.max(a.length, b.length) && a[line] === b[line]) line += 1;
  throw new Error(
    `${relative} differs from the code (first at line ${line + 1}):\n` +
      `  committed: ${a[line] ?? '<end of file>'}\n` +
      `  code:      ${b[line] ?? '<end of file>'}\n` +
      'Run `npm run openapi` and commit the result.',
  );
}

let documents: Record<DocumentName, OpenApiDocument>;

beforeAll(async () => {
  documents = await buildAllDocuments();
}, 180_000);

describe.each(DOCUMENT_NAMES)('%s: committed OpenAPI document and types', (name) => {
  let document: string;

  beforeAll(() => {
    document = serializeDocument(documents[name]);
  });

  it(`openapi/${name}.json is the document the code serves`, () => {
    expectUpToDate(documentPath(name), document);
  });

  it(`openapi/generated/${name}.d.ts is openapi-typescript's output for it`, () => {
    expectUpToDate(typesPath(name), typesOf(document));
  });
});
