/** The parts of an OpenAPI document this check reads. */
interface DocumentWithHeaders {
  paths: Record<
    string,
    Record<
      string,
      {
        responses?: Record<
          string,
          {
            headers?: Record<
              string,
              { schema?: { type?: string; pattern?: string; minimum?: number } }
            >;
          }
        >;
      }
    >
  >;
}

/** The headers of the rate limit, whichever names a version declares or sends. */
const RATE_LIMIT_HEADER = /^(ratelimit|ratelimit-policy|retry-after|x-ratelimit-.+)$/;

/**
 * How an answer's headers differ from what its OpenAPI document declares for the operation
 * (`method` and `route` as in the document) and status: the rate-limit headers sent are the ones
 * declared, no more, no fewer; every declared header sent (the others are optional, e.g.
 * Idempotent-Replayed) has the form its schema gives (pattern, integer, minimum). Empty when
 * they agree.
 */
export function headersAgainstDeclaration(
  document: DocumentWithHeaders,
  method: string,
  route: string,
  status: number,
  headers: Record<string, string | string[] | undefined>,
): string[] {
  const declared = document.paths[route]?.[method.toLowerCase()]?.responses?.[String(status)];
  if (!declared) return [`${method} ${route} ${status} is not documented`];
  const problems: string[] = [];
  const names = Object.keys(declared.headers ?? {});
  for (const [name, { schema = {} }] of Object.entries(declared.headers ?? {})) {
    const value = headers[name.toLowerCase()];
    if (typeof value !== 'string') {
      if (RATE_LIMIT_HEADER.test(name.toLowerCase())) problems.push(`${name}: declared, not sent`);
    } else if (schema.pattern && !new RegExp(schema.pattern).test(value)) {
      problems.push(`${name}: ${value} does not match ${schema.pattern}`);
    } else if (
      schema.type === 'integer' &&
      (!/^\d+$/.test(value) || Number(value) < (schema.minimum ?? 0))
    ) {
      problems.push(`${name}: ${value} is not an integer from ${schema.minimum ?? 0}`);
    }
  }
  for (const name of Object.keys(headers).filter((sent) => RATE_LIMIT_HEADER.test(sent))) {
    if (!names.some((declaredName) => declaredName.toLowerCase() === name)) {
      problems.push(`${name}: sent, not declared`);
    }
  }
  return problems;
}
