import { readFileSync } from 'node:fs';
import { IsInt } from 'class-validator';
import { BaseEnvironment, Describe } from '@bank/shared/config';
import {
  CONFIGURATION_PAGE,
  renderConfigurationPage,
  requiredInProduction,
  undescribed,
  variablesOf,
} from './lib/configuration-page';
import { ENVIRONMENTS, SERVICES } from './lib/rules';

describe('docs/configuration.md', () => {
  it.each(SERVICES)(
    '%s: every variable its environment class validates is described',
    (service) => {
      expect(undescribed(ENVIRONMENTS[service])).toEqual([]);
    },
  );

  it.each(SERVICES)(
    '%s: every variable NODE_ENV=production requires says so in its description',
    (service) => {
      const variables = variablesOf(ENVIRONMENTS[service]);
      const required = requiredInProduction(ENVIRONMENTS[service]);
      expect(required).toEqual(expect.arrayContaining(['AUTH_MODE', 'DATABASE_URL']));
      const silent = required.filter(
        (name) => !variables.find((v) => v.name === name)?.description?.production,
      );
      expect(silent).toEqual([]);
    },
  );

  it('is the page the environment classes generate (npm run docs:config rewrites it)', async () => {
    const generated = await renderConfigurationPage(ENVIRONMENTS);
    const committed = readFileSync(CONFIGURATION_PAGE, 'utf8');
    if (committed !== generated) {
      const [was, is] = [committed.split('\n'), generated.split('\n')];
      const line = is.findIndex((text, i) => text !== was[i]);
      throw new Error(
        'docs/configuration.md differs from the environment classes: run `npm run docs:config` ' +
          `and commit it. First difference, line ${line + 1}:\n  committed: ${was[line]}\n  generated: ${is[line]}`,
      );
    }
  });

  it('shows every variable with its default, production rule and effect', async () => {
    const page = await renderConfigurationPage(ENVIRONMENTS);
    expect(page).toMatch(
      /^\| `X_SECRET` +\| unset: `dev-secret`.*\| Required: at least 32 characters/m,
    );
    expect(page).toMatch(/^\| `DB_POOL_SIZE` +\| 10 +\| — +\| Connections in the database pool/m);
    expect(page).toMatch(/^\| `PORT` +\| 3000 \(card-issue\), 3001 \(client-registration\) /m);
    expect(page).toMatch(/^\| `CLIENT_REGISTRATION_PORT` +\| unset: `PORT` /m);
    for (const service of SERVICES) {
      for (const { name } of variablesOf(ENVIRONMENTS[service])) {
        expect(page).toContain(`| \`${name}\``);
      }
    }
  });
});

describe('the page of an environment class that breaks the rules', () => {
  class Spoiled extends BaseEnvironment {
    override PORT = 1;

    @Describe('Described.')
    @IsInt()
    DESCRIBED = 1;

    @IsInt()
    FORGOTTEN = 2;
  }

  it('names a variable without a description', () => {
    expect(undescribed(Spoiled)).toEqual(['FORGOTTEN']);
  });

  it('differs from the committed page when a description changes', async () => {
    const generated = await renderConfigurationPage({ ...ENVIRONMENTS, 'card-issue': Spoiled });
    expect(generated).not.toEqual(readFileSync(CONFIGURATION_PAGE, 'utf8'));
    expect(generated).toMatch(/^\| `DESCRIBED` +\| 1 +\| — +\| Described\. +\|$/m);
  });
});
