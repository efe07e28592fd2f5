/** Scopes a bearer token needs for the clients operations (AUTH_MODE=jwt; docs/security.md). */
export const CLIENTS_SCOPES = {
  /** GET a client by id. */
  read: 'clients:read',
  /** POST a registration, PUT a client's passport. */
  write: 'clients:write',
} as const;
