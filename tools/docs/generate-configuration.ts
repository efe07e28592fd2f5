/**
 * `npm run docs:config`: writes docs/configuration.md from the services' environment classes
 * (tools/deploy-check/src/lib/configuration-page.ts renders it; its test fails while the
 * committed page differs).
 */
import 'reflect-metadata';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { CardIssueEnvironment } from '../../apps/card-issue/src/config/environment.config';
import { ClientRegistrationEnvironment } from '../../apps/client-registration/src/config/environment.config';
import {
  CONFIGURATION_PAGE,
  renderConfigurationPage,
} from '../deploy-check/src/lib/configuration-page';

async function main(): Promise<void> {
  const page = await renderConfigurationPage({
    'card-issue': CardIssueEnvironment,
    'client-registration': ClientRegistrationEnvironment,
  });
  writeFileSync(CONFIGURATION_PAGE, page);
  console.log(`wrote ${path.relative(process.cwd(), CONFIGURATION_PAGE)}`);
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
