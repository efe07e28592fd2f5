import { formatLocalDateTime } from '@bank/shared/calendar';
import { CardIssueStatus, STATUS_CODES } from './card-issue-status.model';
import type { CardIssueWithHistory } from './card-issues.repository';
import { CardIssueRecordDto, CardIssueResponseDto } from './dto/card-issue-response.dto';

/** The answer of POST and PATCH: a request's id and status. */
export function toCardIssueResponse(request: {
  requestId: string;
  status: CardIssueStatus;
  failureReason: string | null;
}): CardIssueResponseDto {
  return {
    requestId: request.requestId,
    status: request.status,
    statusCode: STATUS_CODES[request.status],
    failureReason: request.failureReason,
  };
}

/** A stored request as the GET endpoints show it, instants as local date-times of `timeZone`. */
export function toCardIssueRecord(
  request: CardIssueWithHistory,
  timeZone: string,
): CardIssueRecordDto {
  const at = (epochMs: number) => formatLocalDateTime(new Date(epochMs), timeZone);
  return {
    ...toCardIssueResponse(request),
    cardOwner: request.cardOwner,
    formFactor: request.formFactor,
    cardHolder: request.cardHolder,
    options: request.options,
    delivery: request.delivery,
    createdAt: at(request.createdAt),
    updatedAt: at(request.updatedAt),
    history: request.history.map((change) => ({
      status: change.status,
      statusCode: STATUS_CODES[change.status],
      at: at(change.at),
      source: change.source,
    })),
  };
}
