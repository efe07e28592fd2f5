import { DataSource } from 'typeorm';

/** Row counts of every table a write may touch, as one comparable string. */
export async function cardIssueRowCounts(ds: DataSource): Promise<string> {
  const [row] = await ds.query<Record<string, string>[]>(
    `SELECT (SELECT count(*) FROM card_issue_requests) AS requests,
            (SELECT count(*) FROM card_issue_status_history) AS history,
            (SELECT count(*) FROM card_issue_idempotency_keys) AS keys,
            (SELECT count(*) FROM outbox_messages) AS outbox,
            (SELECT count(*) FROM user_service.users) AS users,
            (SELECT count(*) FROM operation_service.operations) AS operations,
            (SELECT md5(coalesce(string_agg(id::text || status || updated_at::text, ',' ORDER BY id), ''))
               FROM operation_service.operations) AS operation_states,
            (SELECT md5(coalesce(string_agg(request_id || status || status_sequence, ',' ORDER BY request_id), ''))
               FROM card_issue_requests) AS request_states`,
  );
  return JSON.stringify(row);
}

export async function registrationRowCounts(ds: DataSource): Promise<string> {
  const [row] = await ds.query<Record<string, string>[]>(
    `SELECT count(*) AS clients,
            md5(coalesce(string_agg(concat_ws('|', id, passport_series, passport_number, passport_issue_date,
                                              birth_date, birth_place, actualized_at), ',' ORDER BY id), '')) AS state
       FROM clients`,
  );
  return JSON.stringify(row);
}
