/**
 * The physical limit for each benchmark scenario: node:http + pg doing the same database work
 * as the service (the same SELECTs, the same INSERT statement), without any framework,
 * validation, logging or DTO mapping. Run as its own process:
 *
 *   DATABASE_URL=... PORT=... BASELINE_STATEMENTS=... [USER_LOOKUP=sql|http X_SECRET=...] \
 *     node -r @swc-node/register tools/bench/src/baseline-server.ts
 *
 * (infra.ts startBaseline sets them all).
 *
 * A card issue POST reads each user it references (owner, holder, SMS recipient, courier
 * recipient, as the service does): with USER_LOOKUP=sql (default) straight from the database;
 * with USER_LOOKUP=http by a GET to this process's own raw user route over a keep-alive
 * node:http client, the hop the service makes to its user service, so the two do equal work.
 *
 * The card issue statements are the service's own (card-issues.sql.ts), given by the bench
 * (baseline-statements.ts);
 * the user, manager and client statements mirror the user service's find by id and
 * client-registration's manager lookup, client insert and find by id.
 */
import { randomInt, randomUUID } from 'node:crypto';
import { Agent, IncomingMessage, ServerResponse, createServer, request } from 'node:http';
import { Pool } from 'pg';
import { readStatements } from './baseline-statements';

const { insertCardIssue, selectCardIssueById, selectCardIssuesByClient } = readStatements(
  process.env,
);
const PORT = Number(process.env.PORT);
const USER_LOOKUP = process.env.USER_LOOKUP === 'http' ? 'http' : 'sql';
const X_SECRET = process.env.X_SECRET ?? '';

const pool = new Pool({
  connectionString: process.env.DATABASE_URL,
  max: Number(process.env.DB_POOL_SIZE ?? 10),
});

/** The user service's find by id (users.repository.ts names the entity's columns: all of them). */
const SELECT_USER = 'SELECT * FROM user_service.users WHERE id = $1';

const INSERT_CLIENT = `INSERT INTO clients (last_name, first_name, middle_name, gender, client_type, bankrupt_individual,
   bankrupt_entrepreneur, embossing_name, phone, email, birth_date, birth_place, passport_issue_date, passport_series,
   passport_number, actual_country, actual_region, actual_city, actual_street, actual_building, actual_apartment,
   registration_country, registration_region, registration_city, registration_street, registration_building,
   registration_apartment, manager_pin, account_number, account_currency, accounting_mode, registered_at, actualized_at)
 VALUES ($1,$2,$3,$4,$5,$6,$7,$8,$9,$10,$11,$12,$13,$14,$15,$16,$17,$18,$19,$20,$21,$22,$23,$24,$25,$26,$27,$28,$29,$30,$31,$32,$32)
 RETURNING id`;

const CURRENCY_CODES: Record<string, string> = { RUR: '810', USD: '840', EUR: '978' };

/** ddMMyyyy of the business day in Moscow (UTC+3, no DST). */
function businessDay(now: Date): string {
  const moscow = new Date(now.getTime() + 3 * 3_600_000);
  const dd = String(moscow.getUTCDate()).padStart(2, '0');
  const mm = String(moscow.getUTCMonth() + 1).padStart(2, '0');
  return `${dd}${mm}${moscow.getUTCFullYear()}`;
}

/** dd-MM-yyyy -> yyyy-MM-dd */
const isoDate = (ddmmyyyy: string) => ddmmyyyy.split('-').reverse().join('-');

function readBody(req: IncomingMessage): Promise<unknown> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      try {
        resolve(chunks.length ? JSON.parse(Buffer.concat(chunks).toString('utf8')) : undefined);
      } catch (error) {
        reject(error instanceof Error ? error : new Error(String(error)));
      }
    });
    req.on('error', reject);
  });
}

function send(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    'content-type': 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(text),
  });
  res.end(text);
}

type Json = Record<string, unknown>;

/** Agent settings of the service's HTTP client (integrations.module.ts). */
const userServiceAgent = new Agent({ keepAlive: true, maxSockets: 64 });

/** GET /user-api/api/v1/users/{id} of this process: the user, or null for 404. */
function getUserOverHttp(id: string): Promise<Json | null> {
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: '127.0.0.1',
        port: PORT,
        path: `/user-api/api/v1/users/${encodeURIComponent(id)}`,
        method: 'GET',
        agent: userServiceAgent,
        headers: { 'X-secret': X_SECRET, Accept: 'application/json' },
      },
      (res) => {
        readBody(res).then((body) => {
          if (res.statusCode === 200) resolve(body as Json);
          else if (res.statusCode === 404) resolve(null);
          else reject(new Error(`user service answered ${res.statusCode}`));
        }, reject);
      },
    );
    req.on('error', reject);
    req.end();
  });
}

async function getUserFromDatabase(id: string): Promise<Json | null> {
  const { rows } = await pool.query<Json>(SELECT_USER, [id]);
  return rows[0] ?? null;
}

const findUser = USER_LOOKUP === 'http' ? getUserOverHttp : getUserFromDatabase;

async function createCardIssue(body: Json): Promise<[number, unknown]> {
  const request = body.request as Json;
  const holder = request.cardHolder as Json;
  const options = request.options as Json | undefined;
  const delivery = request.delivery as Json | undefined;
  const courier = delivery?.courier as Json | undefined;
  // The users the service looks up for the same payload, each once.
  const users = [
    ...new Set(
      [
        request.cardOwner,
        holder.userId,
        (options?.smsNotifications as Json | undefined)?.userId,
        (courier?.recipient as Json | undefined)?.userId,
      ].filter((x): x is string => typeof x === 'string'),
    ),
  ];
  const found = await Promise.all(users.map(findUser));
  const missing = users.find((_, i) => found[i] === null);
  const status = missing ? 'FAILED' : 'CREATED';
  const failureReason = missing ? `User ${missing} does not exist` : null;
  const now = new Date();
  const { rows } = await pool.query<{ requestId: string }>(insertCardIssue, [
    businessDay(now),
    status,
    failureReason,
    request.cardOwner,
    holder.userId ?? null,
    request.formFactor,
    JSON.stringify(holder),
    request.options ? JSON.stringify(request.options) : null,
    request.delivery ? JSON.stringify(request.delivery) : null,
    now,
    // The outbox message's trace context: the service stores at least the request id.
    JSON.stringify({ 'x-request-id': randomUUID() }),
    null, // no third-party holder created
  ]);
  return [
    201,
    {
      requestId: rows[0].requestId,
      status,
      statusCode: status === 'CREATED' ? 'STSCI01' : 'STSCI05',
      failureReason,
    },
  ];
}

async function registerClient(body: Json): Promise<[number, unknown]> {
  const manager = await pool.query('SELECT * FROM managers WHERE pin = $1 LIMIT 1', [
    body.managerPin,
  ]);
  if (!manager.rowCount) return [400, { error: 'manager' }];
  const p = body.passportData as Json;
  const contact = body.contactInfo as Json;
  const a = body.actualAddress as Json;
  const r = body.registrationAddress as Json;
  const accountNumber = `40702${CURRENCY_CODES[body.account as string]}${String(randomInt(0, 1e12)).padStart(12, '0')}`;
  const now = new Date();
  const { rows } = await pool.query<{ id: string }>(INSERT_CLIENT, [
    body.lastName,
    body.firstName,
    body.middleName ?? null,
    body.gender,
    body.clientType,
    body.bankruptIndividual,
    body.bankruptEntrepreneur,
    body.embossingName,
    contact.phone,
    contact.email,
    isoDate(p.birthDate as string),
    p.birthPlace,
    isoDate(p.issueDate as string),
    p.series,
    p.number,
    a.country,
    a.region,
    a.city,
    a.street,
    a.building,
    a.apartment ?? null,
    r.country,
    r.region,
    r.city,
    r.street,
    r.building,
    r.apartment ?? null,
    body.managerPin,
    accountNumber,
    body.account,
    100,
    now,
  ]);
  return [
    201,
    {
      id: rows[0].id,
      ...body,
      account: { accountNumber, currency: body.account, accountingMode: 100 },
    },
  ];
}

async function route(req: IncomingMessage): Promise<[number, unknown]> {
  const url = req.url ?? '/';
  let m: RegExpExecArray | null;
  if (req.method === 'GET' && (m = /^\/user-api\/api\/v1\/users\/([A-Z0-9]{6})$/.exec(url))) {
    // The user service's X-secret guard, then its find by id.
    if (req.headers['x-secret'] !== X_SECRET) return [403, { error: 'forbidden' }];
    const user = await getUserFromDatabase(m[1]);
    return user ? [200, user] : [404, { error: 'not found' }];
  }
  if (req.method === 'POST' && url === '/api/v1/card-issue')
    return createCardIssue((await readBody(req)) as Json);
  if (req.method === 'GET' && (m = /^\/api\/v1\/card-issue\/client\/([A-Z0-9]{6})$/.exec(url))) {
    const { rows } = await pool.query<Json>(selectCardIssuesByClient, [m[1], 100, 100, 0]);
    return [200, rows];
  }
  if (req.method === 'GET' && (m = /^\/api\/v1\/card-issue\/(RCARDB\d{14})$/.exec(url))) {
    const { rows } = await pool.query<Json>(selectCardIssueById, [m[1]]);
    return rows.length ? [200, rows[0]] : [404, { error: 'not found' }];
  }
  if (req.method === 'POST' && url === '/api/clients')
    return registerClient((await readBody(req)) as Json);
  if (req.method === 'GET' && (m = /^\/api\/clients\/([0-9a-f-]{36})$/.exec(url))) {
    const { rows } = await pool.query<Json>('SELECT * FROM clients WHERE id = $1 LIMIT 1', [m[1]]);
    return rows.length ? [200, rows[0]] : [404, { error: 'not found' }];
  }
  if (url === '/api/health') return [200, { status: 'UP' }];
  return [404, { error: 'no route' }];
}

const server = createServer((req, res) => {
  route(req).then(
    ([status, body]) => send(res, status, body),
    (error: unknown) =>
      send(res, 500, { error: error instanceof Error ? error.message : String(error) }),
  );
});
server.keepAliveTimeout = 65_000;
server.listen(PORT, '127.0.0.1');
process.on('SIGTERM', () => {
  userServiceAgent.destroy();
  server.close();
  void pool.end().then(() => process.exit(0));
});
