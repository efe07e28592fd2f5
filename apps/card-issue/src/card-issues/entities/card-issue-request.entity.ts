import { Check, Column, Entity, Index, PrimaryColumn } from 'typeorm';
import type { CardIssueStatus, FormFactor } from '../card-issue-status.model';

/** A stored card issue request. The request body parts are kept as given (jsonb). */
@Entity({ name: 'card_issue_requests' })
@Index('ix_card_issue_requests_owner', ['cardOwner', 'createdAt'])
@Index('ix_card_issue_requests_holder', ['holderUserId', 'createdAt'])
@Index('ix_card_issue_requests_status', ['status', 'updatedAt'])
@Check(
  'ck_card_issue_requests_status',
  "status IN ('CREATED','PROCESSING','READY','PLASTIC_READY','FAILED')",
)
@Check('ck_card_issue_requests_form_factor', "form_factor IN ('VIRTUAL','PLASTIC')")
@Check(
  'ck_card_issue_requests_ready',
  "(status <> 'READY' OR form_factor = 'VIRTUAL') AND (status <> 'PLASTIC_READY' OR form_factor = 'PLASTIC')",
)
export class CardIssueRequest {
  @PrimaryColumn({ name: 'request_id', type: 'varchar', length: 20 })
  requestId!: string;

  @Column({ type: 'varchar', length: 16 })
  status!: CardIssueStatus;

  @Column({ name: 'failure_reason', type: 'text', nullable: true })
  failureReason!: string | null;

  @Column({ name: 'card_owner', type: 'varchar', length: 6 })
  cardOwner!: string;

  /** cardHolder.userId, or the id the user service gave a third-party holder; null for nameless cards. */
  @Column({ name: 'holder_user_id', type: 'varchar', length: 6, nullable: true })
  holderUserId!: string | null;

  @Column({ name: 'form_factor', type: 'varchar', length: 8 })
  formFactor!: FormFactor;

  @Column({ name: 'card_holder', type: 'jsonb' })
  cardHolder!: Record<string, unknown>;

  @Column({ type: 'jsonb', nullable: true })
  options!: Record<string, unknown> | null;

  @Column({ type: 'jsonb', nullable: true })
  delivery!: Record<string, unknown> | null;

  /** Id of the matching operation in the operation service, once the outbox delivered it. */
  @Column({ name: 'operation_id', type: 'uuid', nullable: true })
  operationId!: string | null;

  /** Number of status changes so far; orders the status messages sent to the operation service. */
  @Column({ name: 'status_sequence', type: 'int', default: 1 })
  statusSequence!: number;

  @Column({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;

  @Column({ name: 'updated_at', type: 'timestamptz' })
  updatedAt!: Date;
}
