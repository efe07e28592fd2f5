import { eventually } from '@bank/shared/testing';
import type { WebhookReceiver } from '@bank/card-issue/testing';
import { Answer } from './answers';
import { query } from './ha-cluster';
import { HOLDER_SERIES } from './load';

const ok = (status: number) => status >= 200 && status < 300;

/** What the checks found on the new leader; every count but `extra` must be 0 in synchronous mode. */
export interface Findings {
  acknowledged: number;
  /** Acknowledged writes (2xx) not found. */
  lost: string[];
  /** Keyed writes stored more than once, or keys whose 2xx answers named different ids. */
  duplicates: string[];
  /** Third-party holder users that no request holds. */
  orphans: number;
  /** Idempotency keys still held (no response) past their lease. */
  stuckKeys: number;
  /** Requests not moved when due, or moved twice (a status twice in a history). */
  badMoves: string[];
  /** Outbox messages or webhook deliveries not delivered; webhook events out of order. */
  undelivered: string[];
  /** Stored writes whose answer was not a 2xx (an outcome the client could not know). */
  extra: number;
  stored: string;
}

function keyedDuplicates(answers: Answer[]): string[] {
  const idsByKey = new Map<string, Set<string>>();
  for (const a of answers.filter((x) => x.key && ok(x.status))) {
    const ids = idsByKey.get(a.key!) ?? new Set<string>();
    ids.add(a.id!);
    idsByKey.set(a.key!, ids);
  }
  return [...idsByKey].filter(([, ids]) => ids.size > 1).map(([key]) => key);
}

/**
 * card-issue on the leader once its background work has settled: every acknowledged request
 * and PATCH present, one request per Idempotency-Key, no orphan holder, no key held past its
 * lease, every due move made once, the outbox and the webhook deliveries drained and the
 * webhook events of each request received in order. `settle` waits for the background work
 * (it fails when the deadline passes; `strict: false` only reports).
 */
export async function checkCardIssue(
  url: string,
  answers: Answer[],
  owners: { plain: string; keyed: string; holder: string },
  receiver: WebhookReceiver,
  strict: boolean,
): Promise<Findings> {
  const posts = answers.filter((a) => a.kind.startsWith('POST') && ok(a.status)).map((a) => a.id!);
  const patches = answers.filter((a) => a.kind === 'PATCH' && ok(a.status)).map((a) => a.id!);

  // The background work drains: no request waits past its due moves, nothing left to deliver.
  const pending = async () =>
    (
      await query<{ moves: number; outbox: number; webhooks: number }>(
        url,
        `SELECT
           (SELECT count(*)::int FROM card_issue_requests WHERE status IN ('CREATED','PROCESSING')) AS moves,
           (SELECT count(*)::int FROM outbox_messages WHERE state NOT IN ('DELIVERED','SUPERSEDED')) AS outbox,
           (SELECT count(*)::int FROM webhook_deliveries WHERE state <> 'DELIVERED') AS webhooks`,
      )
    )[0];
  let left = await pending();
  await eventually(
    async () => {
      left = await pending();
      return left.moves + left.outbox + left.webhooks === 0;
    },
    60_000,
    250,
  ).catch(() => undefined);

  const storedIds = new Set(
    (
      await query<{ id: string }>(
        url,
        'SELECT request_id AS id FROM card_issue_requests WHERE request_id = ANY($1)',
        [posts],
      )
    ).map((r) => r.id),
  );
  const patchedIds = new Set(
    (
      await query<{ id: string }>(
        url,
        `SELECT DISTINCT request_id AS id FROM card_issue_status_history
          WHERE request_id = ANY($1) AND status = 'FAILED' AND source = 'api'`,
        [patches],
      )
    ).map((r) => r.id),
  );
  const lost = [
    ...posts.filter((id) => !storedIds.has(id)),
    ...patches.filter((id) => !patchedIds.has(id)).map((id) => `PATCH ${id}`),
  ];

  const counts = (
    await query<{ plain: number; keyed: number; holder: number; all: number }>(
      url,
      `SELECT count(*) FILTER (WHERE card_owner = $1)::int AS plain,
              count(*) FILTER (WHERE card_owner = $2)::int AS keyed,
              count(*) FILTER (WHERE card_owner = $3)::int AS holder,
              count(*)::int AS all
         FROM card_issue_requests`,
      [owners.plain, owners.keyed, owners.holder],
    )
  )[0];
  const keys = new Set(answers.filter((a) => a.key && ok(a.status)).map((a) => a.key!));
  const duplicates = keyedDuplicates(answers);
  if (counts.keyed !== keys.size)
    duplicates.push(`${counts.keyed} requests stored for ${keys.size} Idempotency-Keys`);

  const orphans = (
    await query<{ n: number }>(
      url,
      `SELECT count(*)::int AS n FROM user_service.users u
        WHERE u.passport_series = $1
          AND NOT EXISTS (SELECT 1 FROM card_issue_requests r WHERE r.holder_user_id = u.id)`,
      [HOLDER_SERIES],
    )
  )[0].n;
  const stuckKeys = (
    await query<{ n: number }>(
      url,
      `SELECT count(*)::int AS n FROM card_issue_idempotency_keys
        WHERE response_body IS NULL AND locked_until <= clock_timestamp()`,
    )
  )[0].n;

  const twice = await query<{ id: string; status: string; n: number }>(
    url,
    `SELECT request_id AS id, status, count(*)::int AS n FROM card_issue_status_history
      GROUP BY request_id, status HAVING count(*) > 1`,
  );
  const skipped = await query<{ id: string }>(
    url,
    `SELECT r.request_id AS id FROM card_issue_requests r
      WHERE r.status = 'READY' AND NOT EXISTS (
        SELECT 1 FROM card_issue_status_history h
         WHERE h.request_id = r.request_id AND h.status = 'PROCESSING')`,
  );
  const badMoves = [
    ...twice.map((r) => `${r.id} ${r.status} x ${r.n}`),
    ...skipped.map((r) => `${r.id} READY without PROCESSING`),
    ...(left.moves ? [`${left.moves} requests not moved when due`] : []),
  ];

  const undelivered = [
    ...(left.outbox ? [`${left.outbox} outbox messages not delivered`] : []),
    ...(left.webhooks ? [`${left.webhooks} webhook deliveries not delivered`] : []),
  ];
  const stored = await query<{ eventId: string; requestId: string; sequence: number }>(
    url,
    `SELECT event_id AS "eventId", request_id AS "requestId", sequence FROM webhook_deliveries ORDER BY id`,
  );
  const received = new Set(receiver.unique().map((e) => e.id));
  const missing = stored.filter((e) => !received.has(e.eventId));
  if (missing.length) undelivered.push(`${missing.length} webhook events not received`);
  if (receiver.rejected().length)
    undelivered.push(`${receiver.rejected().length} webhooks rejected`);
  // Per request, the first arrival of each event never goes back in sequence.
  const lastSequence = new Map<string, number>();
  let outOfOrder = 0;
  for (const event of receiver.unique()) {
    const previous = lastSequence.get(event.data.requestId) ?? 0;
    if (event.sequence < previous) outOfOrder++;
    lastSequence.set(event.data.requestId, Math.max(previous, event.sequence));
  }
  if (outOfOrder) undelivered.push(`${outOfOrder} webhook events out of order`);

  const sentPlain = answers.filter((a) => a.kind === 'POST').length;
  const ackedPlain = answers.filter((a) => a.kind === 'POST' && ok(a.status)).length;
  const findings: Findings = {
    acknowledged: posts.length + patches.length,
    lost,
    duplicates,
    orphans,
    stuckKeys,
    badMoves,
    undelivered,
    extra: Math.max(0, counts.plain - ackedPlain),
    stored: `${counts.all} requests (${counts.plain} of ${sentPlain} plain POSTs, ${counts.keyed} keyed, ${counts.holder} holder), ${patchedIds.size} PATCHed`,
  };
  if (strict) expectClean(findings);
  return findings;
}

/** client-registration on the leader: every acknowledged client, one per Idempotency-Key, no key stuck. */
export async function checkRegistration(
  url: string,
  answers: Answer[],
  strict: boolean,
): Promise<Findings> {
  const acked = answers.filter((a) => ok(a.status)).map((a) => a.id!);
  const storedIds = new Set(
    (
      await query<{ id: string }>(
        url,
        'SELECT id::text AS id FROM clients WHERE id::text = ANY($1)',
        [acked],
      )
    ).map((r) => r.id),
  );
  const all = (await query<{ n: number }>(url, 'SELECT count(*)::int AS n FROM clients'))[0].n;
  const stuckKeys = (
    await query<{ n: number }>(
      url,
      `SELECT count(*)::int AS n FROM client_idempotency_keys
        WHERE response_body IS NULL AND locked_until <= clock_timestamp()`,
    )
  )[0].n;
  const findings: Findings = {
    acknowledged: acked.length,
    lost: acked.filter((id) => !storedIds.has(id)),
    duplicates: keyedDuplicates(answers),
    orphans: 0,
    stuckKeys,
    badMoves: [],
    undelivered: [],
    extra: Math.max(0, all - new Set(acked).size),
    stored: `${all} clients`,
  };
  if (strict) expectClean(findings);
  return findings;
}

function expectClean(findings: Findings): void {
  expect({
    lost: findings.lost,
    duplicates: findings.duplicates,
    orphans: findings.orphans,
    stuckKeys: findings.stuckKeys,
    badMoves: findings.badMoves,
    undelivered: findings.undelivered,
  }).toEqual({ lost: [], duplicates: [], orphans: 0, stuckKeys: 0, badMoves: [], undelivered: [] });
}
