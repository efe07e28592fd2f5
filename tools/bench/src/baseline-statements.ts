/**
 * The card issue statements the baseline runs: the service's own (card-issues.sql.ts), handed
 * over by the bench in the environment. The baseline does not import them itself because the
 * one door tools have into the app, @bank/card-issue/testing, loads the whole service (Nest,
 * TypeORM, ...): the physical limit would carry some 60 MB of heap it never runs.
 */
interface BaselineStatements {
  insertCardIssue: string;
  selectCardIssueById: string;
  selectCardIssuesByClient: string;
}

const VARIABLE = 'BASELINE_STATEMENTS';

export function statementsEnv(statements: BaselineStatements): Record<string, string> {
  return { [VARIABLE]: JSON.stringify(statements) };
}

export function readStatements(env: NodeJS.ProcessEnv): BaselineStatements {
  const text = env[VARIABLE];
  if (!text) throw new Error(`${VARIABLE} is not set: start the baseline through the bench`);
  return JSON.parse(text) as BaselineStatements;
}
