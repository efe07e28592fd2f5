/**
 * `npm run openapi`: writes each service's OpenAPI document, as its running code serves it
 * at /docs-json, to openapi/<service>.json, and the openapi-typescript types of that
 * document to openapi/generated/<service>.d.ts. Boots each app in-process on a throw-away
 * in-memory database; opens no port. The api-contract tests fail when these files drift.
 */
import 'reflect-metadata';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import {
  buildDocument,
  documentPath,
  generateTypes,
  REPO_ROOT,
  serializeDocument,
  typesPath,
} from '../api-contract/src/lib/openapi-documents';
import { SERVICE_NAMES } from '../api-contract/src/lib/services';

async function main(): Promise<void> {
  for (const name of SERVICE_NAMES) {
    const document = await buildDocument(name);
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
