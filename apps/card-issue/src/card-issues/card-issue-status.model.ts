/** Statuses of a card issue request and their codes (card-issue spec part 3). */
export const CARD_ISSUE_STATUSES = [
  'CREATED',
  'PROCESSING',
  'READY',
  'PLASTIC_READY',
  'FAILED',
] as const;
export type CardIssueStatus = (typeof CARD_ISSUE_STATUSES)[number];

export const STATUS_CODES: Record<CardIssueStatus, string> = {
  CREATED: 'STSCI01',
  PROCESSING: 'STSCI02',
  READY: 'STSCI03',
  PLASTIC_READY: 'STSCI04',
  FAILED: 'STSCI05',
};

export const FORM_FACTORS = ['VIRTUAL', 'PLASTIC'] as const;
export type FormFactor = (typeof FORM_FACTORS)[number];

/** Who made a status change: the API (POST, PATCH) or the scheduler's automatic moves. */
export type StatusSource = 'api' | 'scheduler';

/** The final status of the automatic moves for a form factor; also the only "ready" status it may take. */
function readyStatusFor(formFactor: FormFactor): CardIssueStatus {
  return formFactor === 'VIRTUAL' ? 'READY' : 'PLASTIC_READY';
}

/** READY is only for VIRTUAL and PLASTIC_READY only for PLASTIC (docs/api/card-issue.md). */
export function isStatusAllowedFor(status: CardIssueStatus, formFactor: FormFactor): boolean {
  if (status === 'READY' || status === 'PLASTIC_READY')
    return status === readyStatusFor(formFactor);
  return true;
}
