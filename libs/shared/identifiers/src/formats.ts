/** Identifier formats of the specs, as anchored regular expressions. */

/** User id (also cardOwner): X + 5 of A-Z, 0-9 (card-issue spec 2.1). */
export const USER_ID_PATTERN = /^X[A-Z0-9]{5}$/;
/** Courier recipient user id: one uppercase letter + 5 of A-Z, 0-9 (card-issue spec 2.2, Recipient). */
export const RECIPIENT_USER_ID_PATTERN = /^[A-Z][A-Z0-9]{5}$/;
/* The card issue request id's format lives in request-id.ts. */
/** Branch id: exactly 4 digits. */
export const BRANCH_ID_PATTERN = /^\d{4}$/;
/** User-service manager PIN: one uppercase letter, underscore, 4 of A-Z, 0-9. */
export const USER_MANAGER_PIN_PATTERN = /^[A-Z]_[A-Z0-9]{4}$/;
/** Registration-service manager PIN: 6 of A-Z, 0-9 and underscore (docs/api/client-registration.md). */
export const REGISTRATION_MANAGER_PIN_PATTERN = /^[A-Z0-9_]{6}$/;
/** Account number: 40702 + 3-digit currency code + 12 digits (20 characters). */
export const ACCOUNT_NUMBER_PATTERN = /^40702\d{15}$/;
export const PHONE_PATTERN = /^7\d{10}$/;
export const PASSPORT_SERIES_PATTERN = /^\d{4}$/;
export const PASSPORT_NUMBER_PATTERN = /^\d{6}$/;
export const UUID_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
