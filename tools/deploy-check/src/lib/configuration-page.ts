/*
 * docs/configuration.md, generated from the services' environment classes: every validated
 * variable with its default, what NODE_ENV=production requires of it and what it does, the
 * texts taken from the @Describe on its property. `npm run docs:config` writes the page;
 * configuration-page.spec.ts fails while the committed page differs from this rendering.
 */
import { getMetadataStorage } from 'class-validator';
import { format, resolveConfig } from 'prettier';
import {
  type BaseEnvironment,
  describedVariables,
  PORT_VARIABLE_DESCRIPTION,
  validateEnvironment,
  type VariableDescription,
} from '@bank/shared/config';
import { repoPath } from './repo';

export const CONFIGURATION_PAGE = repoPath('docs', 'configuration.md');

export type EnvironmentClass = (new () => BaseEnvironment) & { PORT_VARIABLE?: string };

/** One variable of one service, as the page shows it. */
export interface Variable {
  name: string;
  /** The class that declares its validation (BaseEnvironment for the shared ones). */
  declaredBy: EnvironmentClass;
  description: VariableDescription | undefined;
  /** The property's initial value in this service's class. */
  initial: unknown;
}

/** Every validated variable of an environment class, in declaration order. */
export function variablesOf(cls: EnvironmentClass): Variable[] {
  const metadata = getMetadataStorage().getTargetValidationMetadatas(cls, '', true, false);
  const declaredBy = new Map<string, EnvironmentClass>();
  for (const entry of metadata) {
    // A base class's metadata comes first; a subclass re-validating a property declares it anew.
    if (!declaredBy.has(entry.propertyName) || entry.target === cls)
      declaredBy.set(entry.propertyName, entry.target as EnvironmentClass);
  }
  const descriptions = describedVariables(cls);
  const order = [...descriptions.keys(), ...declaredBy.keys()];
  const instance = new cls() as unknown as Record<string, unknown>;
  return [...new Set(order)]
    .filter((name) => declaredBy.has(name))
    .map((name) => ({
      name,
      declaredBy: declaredBy.get(name) as EnvironmentClass,
      description: descriptions.get(name),
      initial: instance[name],
    }));
}

/** Variables a service validates without saying what they do. */
export function undescribed(cls: EnvironmentClass): string[] {
  return variablesOf(cls)
    .filter((variable) => !variable.description)
    .map((variable) => variable.name);
}

/**
 * The variables NODE_ENV=production requires although development does not: those named by
 * the start-up validation of an environment that sets NODE_ENV alone.
 */
export function requiredInProduction(cls: EnvironmentClass): string[] {
  const named = (nodeEnv: string): Set<string> => {
    try {
      validateEnvironment(cls, { NODE_ENV: nodeEnv });
      return new Set();
    } catch (error) {
      const lines = (error as Error).message.split('\n').slice(1);
      return new Set(lines.map((line) => /^\s*([A-Z][A-Z0-9_]*)/.exec(line)?.[1] ?? line));
    }
  };
  const development = named('development');
  return [...named('production')].filter((name) => !development.has(name)).sort();
}

function shown(value: unknown): string {
  if (value === undefined || value === null) return 'unset';
  if (typeof value === 'number') return String(value);
  if (Array.isArray(value)) return `\`${value.join(',')}\``;
  return `\`${JSON.stringify(value).replace(/^"|"$/g, '')}\``;
}

function cell(text: string): string {
  return text.replace(/\|/g, '\\|').replace(/\n/g, ' ');
}

function defaultOf(variable: Variable): string {
  return variable.description?.default ?? shown(variable.initial);
}

const HEADER =
  '| Variable | Default | With `NODE_ENV=production` | Effect |\n| --- | --- | --- | --- |';

function row(name: string, description: VariableDescription | undefined, defaults: string): string {
  return `| \`${name}\` | ${cell(defaults)} | ${cell(description?.production ?? '—')} | ${cell(description?.effect ?? '')} |`;
}

/** The page, formatted as Prettier formats the repository's Markdown. */
export async function renderConfigurationPage(
  services: Record<string, EnvironmentClass>,
): Promise<string> {
  const names = Object.keys(services);
  const perService = names.map((name) => ({ name, variables: variablesOf(services[name]) }));
  const shared = perService[0].variables.filter((v) => v.declaredBy !== services[names[0]]);

  const sharedRows = shared.map((variable) => {
    const defaults = perService.map(({ name, variables }) => ({
      name,
      value: defaultOf(variables.find((v) => v.name === variable.name) as Variable),
    }));
    const same = defaults.every((d) => d.value === defaults[0].value);
    return row(
      variable.name,
      variable.description,
      same ? defaults[0].value : defaults.map((d) => `${d.value} (${d.name})`).join(', '),
    );
  });

  const sections = perService.map(({ name, variables }) => {
    const cls = services[name];
    const own = variables.filter((v) => v.declaredBy === cls);
    const rows = [
      ...(cls.PORT_VARIABLE
        ? [
            row(
              cls.PORT_VARIABLE,
              PORT_VARIABLE_DESCRIPTION,
              PORT_VARIABLE_DESCRIPTION.default ?? '',
            ),
          ]
        : []),
      ...own.map((v) => row(v.name, v.description, defaultOf(v))),
    ];
    return `## ${name}\n\nIts own variables, besides those of both services.\n\n${HEADER}\n${rows.join('\n')}\n`;
  });

  const text = `# Configuration

<!-- Generated by \`npm run docs:config\` from the services' environment classes (the @Describe
on each property); a test fails while this page differs. Edit the classes, not this page. -->

Each service reads its configuration from environment variables once, at start-up, and
validates them: a bad value stops the service with one message naming every bad variable (a
secret's value is never shown, a URL's password is masked). The classes are
\`libs/shared/config/src/environment.ts\` (both services) and each service's
\`src/config/environment.config.ts\`.

The third column says what \`NODE_ENV=production\` requires or refuses beyond the rules that
always apply. Durations are in milliseconds where the name ends in \`_MS\`.

## Both services

${HEADER}
${sharedRows.join('\n')}

${sections.join('\n')}
## Not in the schema

Tracing reads the standard OpenTelemetry variables (\`OTEL_EXPORTER_OTLP_ENDPOINT\` turns it
on; \`OTEL_*\`), as the OpenTelemetry SDK documents them: [docs/tracing.md](tracing.md).
`;
  const options = (await resolveConfig(CONFIGURATION_PAGE)) ?? {};
  return format(text, { ...options, parser: 'markdown' });
}
