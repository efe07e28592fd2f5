import Ajv, { type ErrorObject, type ValidateFunction } from 'ajv';
import draft07 from 'ajv/dist/refs/json-schema-draft-07.json';
import addFormats from 'ajv-formats';
import { readFileSync } from 'node:fs';
import path from 'node:path';

/** The Compose Specification's JSON schema, as shipped inside the dclint package. */
export function composeSchemaPath(): string {
  // dclint's "exports" hide the schemas folder from require.resolve; its package.json is open.
  return path.join(
    path.dirname(require.resolve('dclint/package.json')),
    'schemas',
    'compose.schema.json',
  );
}

let validate: ValidateFunction | undefined;

function compiled(): ValidateFunction {
  if (validate) return validate;
  const schema = JSON.parse(readFileSync(composeSchemaPath(), 'utf8')) as Record<string, unknown>;
  // strict: false: the schema uses annotations (e.g. "deprecated") that strict mode rejects.
  const ajv = new Ajv({ allErrors: true, strict: false });
  addFormats(ajv);
  // The schema names its meta-schema "https://json-schema.org/draft-07/schema", Ajv knows
  // draft-07 as "http://json-schema.org/draft-07/schema#": register it under that name too.
  const metaSchema = schema.$schema;
  if (typeof metaSchema === 'string' && !ajv.getSchema(metaSchema)) {
    ajv.addMetaSchema({ ...draft07, $id: metaSchema });
  }
  validate = ajv.compile(schema);
  return validate;
}

/** The schema's complaints about a parsed compose file, one line each; empty when valid. */
export function composeSchemaErrors(compose: unknown): string[] {
  const check = compiled();
  if (check(compose)) return [];
  return (check.errors ?? []).map((e: ErrorObject) => {
    const extra =
      e.keyword === 'additionalProperties'
        ? ` (${String((e.params as { additionalProperty: string }).additionalProperty)})`
        : '';
    return `${e.instancePath || '/'} ${e.message ?? e.keyword}${extra}`;
  });
}
