/** Scopes a bearer token needs for the card issue operations (AUTH_MODE=jwt; docs/security.md). */
export const CARD_ISSUE_SCOPES = {
  /** GET a request by id, GET the requests of a client. */
  read: 'card-issue:read',
  /** POST a card issue request. */
  write: 'card-issue:write',
  /** PATCH the status of a request. */
  status: 'card-issue:status',
} as const;
