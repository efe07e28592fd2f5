/**
 * `npm run openapi`: writes each service's OpenAPI document, as its running code serves it
 * at /docs-json, to openapi/<service>.json, and the openapi-typescript types of that
 * document to openapi/generated/<service>.d.ts. Boots each app in-process on a throw-away
 * in-memory database; opens no port. The api-contract tests fail when these files drift.
 * A breaking change of a committed document must be acknowledged in openapi/CHANGELOG.md
 * first (see tools/api-contract/src/lib/breaking-changes.ts).
 */
import 'reflect-metadata';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import {
  buildAllDocuments,
  documentPath,
  generateTypes,
  REPO_ROOT,
  serializeDocument,
  typesPath,
} from '../api-contract/src/lib/openapi-documents';
import { DOCUMENT_NAMES } from '../api-contract/src/lib/services';
import {
  compareDocuments,
  gateMessage,
  readChangelog,
  unacknowledged,
  versionProblem,
} from '../api-contract/src/lib/breaking-changes';

async function main(): Promise<void> {
  const documents = await buildAllDocuments();
  // The breaking-change gate (openapi/CHANGELOG.md): nothing is written while a change that
  // breaks the committed contract is not acknowledged there, or while a document's
  // info.version does not step as docs/versioning.md says.
  const changelog = readChangelog();
  const compared = DOCUMENT_NAMES.flatMap((name) => {
    const file = documentPath(name);
    if (!existsSync(file)) return [];
    const committed = JSON.parse(readFileSync(file, 'utf8')) as typeof documents[typeof name];
    const { breaking, level } = compareDocuments(name, committed, documents[name]);
    return [{ breaking, version: versionProblem(name, committed, documents[name], level) }];
  });
  const breaking = unacknowledged(
    compared.flatMap((c) => c.breaking),
    changelog,
  );
  if (breaking.length > 0) {
    throw new Error(gateMessage(breaking, 'between the committed documents and the code'));
  }
  const versions = compared.flatMap((c) => (c.version ? [c.version] : []));
  if (versions.length > 0) throw new Error(versions.join('\n'));
  for (const name of DOCUMENT_NAMES) {
    const document = documents[name];
    const file = documentPath(name);
    mkdirSync(path.dirname(file), { recursive: true });
    writeFileSync(file, serializeDocument(document));
    mkdirSync(path.dirname(typesPath(name)), { recursive: true });
    generateTypes(file, typesPath(name));
    console.log(
      `${name}: ${path.relative(REPO_ROOT, file)}, ${path.relative(REPO_ROOT, typesPath(name))}`,
    );
  }
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
