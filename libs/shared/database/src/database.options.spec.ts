import { assertTestDatabase, databaseName } from './database.options';

describe('test database guard', () => {
  it('refuses a database whose name does not mark it as a test one', () => {
    expect(() => assertTestDatabase('postgres://u@h:5432/cards', { NODE_ENV: 'test' })).toThrow(
      /"cards".*test/,
    );
    expect(() =>
      assertTestDatabase('postgres://u@h:5432/postgres', { NODE_ENV: 'test' }),
    ).toThrow();
  });

  it('accepts test databases', () => {
    expect(() =>
      assertTestDatabase('postgres://u@h:5432/test', { NODE_ENV: 'test' }),
    ).not.toThrow();
    expect(() =>
      assertTestDatabase('postgres://u@h:5432/test_cards_1a2b', { NODE_ENV: 'test' }),
    ).not.toThrow();
  });

  it('does not apply outside tests', () => {
    expect(() =>
      assertTestDatabase('postgres://u@h:5432/cards', { NODE_ENV: 'production' }),
    ).not.toThrow();
  });

  it('reads the database name from a URL', () => {
    expect(databaseName('postgres://u:p@h:5432/my%20db?sslmode=require')).toBe('my db');
  });
});
