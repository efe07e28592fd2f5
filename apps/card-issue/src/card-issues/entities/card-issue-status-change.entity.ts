import {
  Check,
  Column,
  Entity,
  Index,
  JoinColumn,
  ManyToOne,
  PrimaryGeneratedColumn,
} from 'typeorm';
import type { CardIssueStatus, StatusSource } from '../card-issue-status.model';
import { CardIssueRequest } from './card-issue-request.entity';

/** One entry of a request's status history. */
@Entity({ name: 'card_issue_status_history' })
@Index('ix_card_issue_status_history_request', ['requestId', 'id'])
@Check('ck_card_issue_status_history_source', "source IN ('api','scheduler')")
export class CardIssueStatusChange {
  @PrimaryGeneratedColumn({ type: 'bigint' })
  id!: string;

  @Column({ name: 'request_id', type: 'varchar', length: 20 })
  requestId!: string;

  @ManyToOne(() => CardIssueRequest, { onDelete: 'CASCADE' })
  // The name PostgreSQL gave the migration's inline REFERENCES.
  @JoinColumn({
    name: 'request_id',
    foreignKeyConstraintName: 'card_issue_status_history_request_id_fkey',
  })
  request?: CardIssueRequest;

  @Column({ type: 'varchar', length: 16 })
  status!: CardIssueStatus;

  @Column({ type: 'varchar', length: 16 })
  source!: StatusSource;

  @Column({ type: 'timestamptz' })
  at!: Date;
}
