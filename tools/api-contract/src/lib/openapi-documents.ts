import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { NestFactory } from '@nestjs/core';
import { NestFastifyApplication } from '@nestjs/platform-fastify';
import { EmbeddedPostgres } from '@bank/shared/database';
import { createHttpAdapter } from '@bank/shared/http';
import { DOCUMENT_NAMES, DOCUMENTS, DocumentName, SERVICES, ServiceName } from './services';

/** The workspace root (this file is tools/api-contract/src/lib/openapi-documents.ts). */
export const REPO_ROOT = path.resolve(__dirname, '../../../..');

export function repoPath(...parts: string[]): string {
  return path.join(REPO_ROOT, ...parts);
}

/** openapi/<document>.json, the committed document integrators read. */
export function documentPath(name: DocumentName): string {
  return repoPath('openapi', `${name}.json`);
}

/** openapi/generated/<document>.d.ts, the committed openapi-typescript types of that document. */
export function typesPath(name: DocumentName): string {
  return repoPath('openapi', 'generated', `${name}.d.ts`);
}

/** The minimal shape of an OpenAPI 3 document the checks walk. */
export interface OpenApiDocument {
  openapi: string;
  info: { title: string; version: string };
  paths: Record<string, Record<string, { operationId?: string; summary?: string }>>;
  [key: string]: unknown;
}

/**
 * The documents a service serves at {prefix}/docs-json, taken from the real app: its AppModule
 * with its own configureApp, on a throw-away in-memory PostgreSQL (PGlite; the name contains
 * "test" so the test-database guard accepts it under Jest), answered through Fastify's
 * inject — no port is opened.
 */
export async function buildDocuments(
  name: ServiceName,
): Promise<Partial<Record<DocumentName, OpenApiDocument>>> {
  const service = SERVICES[name];
  const db = await EmbeddedPostgres.start('memory://', 8, 'test');
  let app: NestFastifyApplication | undefined;
  try {
    app = await NestFactory.create<NestFastifyApplication>(
      service.module({ ...service.overrides, DATABASE_URL: db.url }),
      createHttpAdapter(),
      { bufferLogs: true, abortOnError: false },
    );
    service.configure(app);
    await app.init();
    const documents: Partial<Record<DocumentName, OpenApiDocument>> = {};
    for (const document of DOCUMENT_NAMES.filter((doc) => DOCUMENTS[doc].service === name)) {
      const url = `${DOCUMENTS[document].prefix}/docs-json`;
      const response = await app.getHttpAdapter().getInstance().inject({ method: 'GET', url });
      if (response.statusCode !== 200) {
        throw new Error(`${name}: GET ${url} answered ${response.statusCode}`);
      }
      documents[document] = response.json<OpenApiDocument>();
    }
    return documents;
  } finally {
    await app?.close();
    await db.stop();
  }
}

/** Every document, from each service booted once. */
export async function buildAllDocuments(): Promise<Record<DocumentName, OpenApiDocument>> {
  const all: Partial<Record<DocumentName, OpenApiDocument>> = {};
  for (const service of Object.keys(SERVICES) as ServiceName[]) {
    Object.assign(all, await buildDocuments(service));
  }
  return all as Record<DocumentName, OpenApiDocument>;
}

/** Pretty JSON in the order the service emits it (deterministic for the same code). */
export function serializeDocument(document: OpenApiDocument): string {
  return `${JSON.stringify(document, null, 2)}\n`;
}

/**
 * Runs the openapi-typescript CLI on a document file and writes its .d.ts. It runs in the
 * output's folder: in the workspace root it would pick up redocly.yaml (the lint ruleset)
 * and generate its `apis` instead of the given file.
 */
export function generateTypes(documentFile: string, outputFile: string): void {
  execFileSync(
    process.execPath,
    [
      repoPath('node_modules/openapi-typescript/bin/cli.js'),
      path.resolve(documentFile),
      '--output',
      path.resolve(outputFile),
    ],
    { cwd: path.dirname(path.resolve(outputFile)), stdio: 'pipe' },
  );
}

/** The openapi-typescript output for a document held in memory. */
export function typesOf(serialized: string): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'api-contract-'));
  try {
    const input = path.join(dir, 'document.json');
    const output = path.join(dir, 'document.d.ts');
    writeFileSync(input, serialized);
    generateTypes(input, output);
    return readFileSync(output, 'utf8');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Every operation of a document as "METHOD /path". */
export function operationsOf(document: OpenApiDocument): string[] {
  const methods = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];
  return Object.entries(document.paths).flatMap(([route, item]) =>
    Object.keys(item)
      .filter((key) => methods.includes(key))
      .map((method) => `${method.toUpperCase()} ${route}`),
  );
}
