import { Client } from 'pg';

/** The first column of the first row of `sql` on the database at `url` (a process's own database). */
export async function queryValue<T>(url: string, sql: string, params: unknown[] = []): Promise<T> {
  const client = new Client({ connectionString: url });
  await client.connect();
  try {
    const { rows } = await client.query<Record<string, T>>(sql, params);
    return Object.values(rows[0])[0];
  } finally {
    await client.end();
  }
}
