import { readFileSync } from 'node:fs';
import Ajv, { ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import { documentPath, OpenApiDocument } from './lib/openapi-documents';
import { DOCUMENT_NAMES, DocumentName } from './lib/services';

/*
 * The committed documents are complete (issue 16 item 4): every tag declared, every answer
 * the platform gives documented with its body and headers, bounded integers, no operation,
 * parameter, response or tag without a description, and every example valid for its schema.
 */

interface Schema {
  $ref?: string;
  type?: string;
  example?: unknown;
  minimum?: number;
  maximum?: number;
  properties?: Record<string, Schema>;
  items?: Schema;
  allOf?: Schema[];
  oneOf?: Schema[];
  anyOf?: Schema[];
  additionalProperties?: Schema | boolean;
}
interface Example {
  value?: unknown;
}
interface Media {
  schema?: Schema;
  example?: unknown;
  examples?: Record<string, Example>;
}
interface Response {
  description?: string;
  headers?: Record<string, { description?: string; schema?: Schema }>;
  content?: Record<string, Media>;
}
interface Parameter {
  name: string;
  in: string;
  description?: string;
  schema?: Schema;
  example?: unknown;
  examples?: Record<string, Example>;
}
interface Operation {
  summary?: string;
  operationId?: string;
  tags?: string[];
  parameters?: Parameter[];
  requestBody?: { content?: Record<string, Media> };
  responses: Record<string, Response>;
}
type Document = OpenApiDocument & {
  tags?: { name: string; description?: string }[];
  components?: { schemas?: Record<string, Schema> };
};

const METHODS = ['get', 'put', 'post', 'delete', 'patch'];

function load(name: DocumentName): Document {
  return JSON.parse(readFileSync(documentPath(name), 'utf8')) as Document;
}

function operations(document: Document): [string, Operation][] {
  return Object.entries(document.paths).flatMap(([route, item]) =>
    Object.entries(item as unknown as Record<string, Operation>)
      .filter(([method]) => METHODS.includes(method))
      .map(([method, operation]) => [`${method.toUpperCase()} ${route}`, operation]),
  ) as [string, Operation][];
}

const isHealth = (operation: Operation) => operation.operationId?.startsWith('Health_') ?? false;

/** The OpenAPI 3.0 schemas as JSON Schema for Ajv ($refs into one "components" schema). */
function validatorFor(document: Document): (schema: Schema) => ValidateFunction {
  const ajv = new Ajv({ strict: false, allErrors: true });
  addFormats(ajv);
  const rewrite = (value: unknown): unknown => {
    if (Array.isArray(value)) return value.map(rewrite);
    if (value && typeof value === 'object') {
      return Object.fromEntries(
        Object.entries(value).map(([key, inner]) => [
          key,
          key === '$ref' && typeof inner === 'string'
            ? inner.replace('#/components/schemas/', 'components#/definitions/')
            : rewrite(inner),
        ]),
      );
    }
    return value;
  };
  ajv.addSchema({ $id: 'components', definitions: rewrite(document.components?.schemas ?? {}) });
  return (schema) => ajv.compile(rewrite(schema) as object);
}

interface ExampleCheck {
  where: string;
  schema: Schema;
  value: unknown;
}

/** Every example of the document with the schema it must satisfy. */
function examplesOf(document: Document): ExampleCheck[] {
  const checks: ExampleCheck[] = [];
  const inSchema = (schema: Schema | undefined, where: string) => {
    if (!schema || typeof schema !== 'object') return;
    if ('example' in schema && !schema.$ref) {
      checks.push({ where: `${where} (example)`, schema, value: schema.example });
    }
    for (const [name, property] of Object.entries(schema.properties ?? {})) {
      inSchema(property, `${where}.${name}`);
    }
    if (schema.items) inSchema(schema.items, `${where}[]`);
    for (const key of ['allOf', 'oneOf', 'anyOf'] as const) {
      (schema[key] ?? []).forEach((inner, index) => inSchema(inner, `${where}.${key}[${index}]`));
    }
    if (typeof schema.additionalProperties === 'object') {
      inSchema(schema.additionalProperties, `${where}.*`);
    }
  };
  const withSchema = (holder: Media | Parameter, where: string) => {
    if (!holder.schema) return;
    inSchema(holder.schema, `${where} schema`);
    if ('example' in holder) {
      checks.push({ where: `${where} example`, schema: holder.schema, value: holder.example });
    }
    for (const [name, example] of Object.entries(holder.examples ?? {})) {
      checks.push({
        where: `${where} examples.${name}`,
        schema: holder.schema,
        value: example.value,
      });
    }
  };
  for (const [name, schema] of Object.entries(document.components?.schemas ?? {})) {
    inSchema(schema, `#/components/schemas/${name}`);
  }
  for (const [key, operation] of operations(document)) {
    for (const parameter of operation.parameters ?? []) {
      withSchema(parameter, `${key} parameter ${parameter.name}`);
    }
    for (const [type, media] of Object.entries(operation.requestBody?.content ?? {})) {
      withSchema(media, `${key} body ${type}`);
    }
    for (const [status, response] of Object.entries(operation.responses)) {
      for (const [type, media] of Object.entries(response.content ?? {})) {
        withSchema(media, `${key} ${status} ${type}`);
      }
    }
  }
  return checks;
}

describe.each(DOCUMENT_NAMES)('%s: the committed document is complete', (name) => {
  const document = load(name);
  const all = operations(document);
  const api = all.filter(([, operation]) => !isHealth(operation));

  it('declares every tag its operations use, its own API first, each with a description', () => {
    const declared = (document.tags ?? []).map((tag) => tag.name);
    const used = [...new Set(all.flatMap(([, operation]) => operation.tags ?? []))];
    expect(used.filter((tag) => !declared.includes(tag))).toEqual([]);
    expect(declared[0]).toBe(api[0][1].tags?.[0]);
    expect((document.tags ?? []).filter((tag) => !tag.description?.trim())).toEqual([]);
  });

  it('has no operation without a summary, no parameter or response without a description', () => {
    const missing: string[] = [];
    for (const [key, operation] of all) {
      if (!operation.summary?.trim()) missing.push(`${key}: summary`);
      for (const parameter of operation.parameters ?? []) {
        if (!parameter.description?.trim()) missing.push(`${key}: parameter ${parameter.name}`);
      }
      for (const [status, response] of Object.entries(operation.responses)) {
        if (!response.description?.trim()) missing.push(`${key}: ${status}`);
        for (const [header, declaration] of Object.entries(response.headers ?? {})) {
          if (!declaration.description?.trim()) missing.push(`${key}: ${status} ${header}`);
        }
      }
    }
    expect(missing).toEqual([]);
  });

  it('documents 429, 500 and 503 with the error body on every operation but the health check', () => {
    const missing = api.flatMap(([key, operation]) =>
      ['429', '500', '503']
        .filter((status) => !operation.responses[status]?.content?.['application/json']?.schema)
        .map((status) => `${key}: ${status}`),
    );
    expect(missing).toEqual([]);
  });

  it('documents 400 (malformed JSON), 408, 413 and 415 on every operation with a body', () => {
    const missing = api
      .filter(([, operation]) => operation.requestBody)
      .flatMap(([key, operation]) => [
        ...['400', '408', '413', '415']
          .filter((status) => !operation.responses[status]?.content?.['application/json'])
          .map((status) => `${key}: ${status}`),
        ...(operation.responses['400']?.content?.['application/json']?.examples?.malformedJson
          ? []
          : [`${key}: 400 malformedJson example`]),
      ]);
    expect(missing).toEqual([]);
  });

  it('declares X-Request-Id on every response, Retry-After on 429 and 503, rate-limit headers on 2xx and 429', () => {
    const missing: string[] = [];
    for (const [key, operation] of all) {
      for (const [status, response] of Object.entries(operation.responses)) {
        const headers = Object.keys(response.headers ?? {});
        const expected = ['X-Request-Id'];
        if (!isHealth(operation) && ['429', '503'].includes(status)) expected.push('Retry-After');
        if (!isHealth(operation) && /^(2|429)/.test(status)) {
          expected.push('RateLimit-Policy', 'RateLimit');
        }
        for (const header of expected) {
          if (!headers.includes(header)) missing.push(`${key} ${status}: ${header}`);
        }
      }
    }
    expect(missing).toEqual([]);
  });

  it('documents 405 with Allow (the methods of the path) and the error body on every operation', () => {
    const problems = Object.entries(document.paths).flatMap(([route, item]) => {
      const methods = Object.keys(item as object).filter((method) => METHODS.includes(method));
      const allow = [
        ...methods.map((m) => m.toUpperCase()),
        ...(methods.includes('get') ? ['HEAD'] : []),
      ]
        .sort()
        .join(', ');
      return operations({ ...document, paths: { [route]: item } }).flatMap(([key, operation]) => {
        const answer = operation.responses['405'];
        if (!answer?.content?.['application/json']?.schema) return [`${key}: 405`];
        const example = answer.headers?.Allow?.schema?.example;
        return example === allow ? [] : [`${key}: Allow ${String(example)}, not ${allow}`];
      });
    });
    expect(problems).toEqual([]);
  });

  it('declares every integer query parameter as a bounded integer', () => {
    const loose = all.flatMap(([key, operation]) =>
      (operation.parameters ?? [])
        .filter((parameter) => parameter.in === 'query')
        .filter(
          ({ schema }) =>
            schema?.type !== 'string' &&
            (schema?.type !== 'integer' ||
              schema.minimum === undefined ||
              schema.maximum === undefined),
        )
        .map((parameter) => `${key}: ${parameter.name}`),
    );
    expect(loose).toEqual([]);
  });

  it('has examples that all validate against their schemas', () => {
    const compile = validatorFor(document);
    const checks = examplesOf(document);
    expect(checks.length).toBeGreaterThan(0);
    const invalid = checks.flatMap(({ where, schema, value }) => {
      const validate = compile(schema);
      return validate(value) ? [] : [`${where}: ${JSON.stringify(validate.errors)}`];
    });
    expect(invalid).toEqual([]);
  });
});

describe('response headers of the operations that replay', () => {
  it.each([
    ['card-issue', 'POST /api/v1/card-issue'],
    ['client-registration', 'POST /api/clients'],
  ] as [DocumentName, string][])('%s %s declares Idempotent-Replayed on 201', (name, key) => {
    const operation = operations(load(name)).find(([candidate]) => candidate === key)?.[1];
    expect(Object.keys(operation?.responses['201'].headers ?? {})).toContain('Idempotent-Replayed');
  });
});

describe('the example check itself', () => {
  it('finds an example that breaks its schema (a seeded wrong type)', () => {
    const document = load('card-issue');
    const seeded = JSON.parse(JSON.stringify(document)) as Document;
    const body = seeded.components?.schemas?.CardIssueErrorBody;
    if (!body?.properties) throw new Error('CardIssueErrorBody has no properties');
    body.properties.status.example = 'four hundred';
    const compile = validatorFor(seeded);
    const invalid = examplesOf(seeded).filter(({ schema, value }) => !compile(schema)(value));
    expect(invalid.map(({ where }) => where)).toEqual([
      '#/components/schemas/CardIssueErrorBody.status (example)',
    ]);
    const pristine = validatorFor(document);
    expect(examplesOf(document).length).toBeGreaterThan(50);
    expect(examplesOf(document).filter(({ schema, value }) => !pristine(schema)(value))).toEqual(
      [],
    );
  });
});
