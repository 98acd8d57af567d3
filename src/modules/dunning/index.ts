// Dunning (Mahnwesen): overdue marking, payment reminders and Mahnungen under the
// company's policy. Importing this module registers its daily tasks and its job
// (tasks.ts), so every process that runs the scheduler or a worker imports it.
import './tasks.ts';

export { BASE_RATE_FILE_NAME, BaseRateFileError, loadBaseRates } from './base-rate-file.ts';
export { activeBaseRates, BASE_RATES, currentRateMissing, useBaseRates } from './base-rates.ts';
export { computeClaim, isBusinessCustomer } from './claim.ts';
export type { DunningRunSummary, StaleBaseRate } from './create-notices.ts';
export { defaultInterest } from './default-interest.ts';
export { DunningActionError, type DunningActionRefusal, REASON_MAX } from './dunning-stop-error.ts';
export { listDunningStops, type StopRow, stopForCustomer, stopsForInvoice } from './dunning-stops.ts';
export { type LiftedStop, liftDunningStop } from './lift-dunning-stop.ts';
export type { NoticeDocument } from './notice-document.ts';
export { noticeTitle } from './notice-document.ts';
export { listSentNotices, listUnsentNotices, type NoticeListRow, type NoticeReasonCode, noticePdf, noticeReason, type SentKey } from './notice-lists.ts';
export { DEFAULT_POLICY, type DunningPolicy, dunningPolicySchema, parseDunningPolicy, policyOf } from './policy.ts';
export { type RemindedNow, remindNow } from './remind-now.ts';
export { renderNoticePdf } from './render/notice-pdf.ts';
export { type RetriedNotice, RetryNoticeError, type RetryRefusalCode, retryNotice } from './retry-notice.ts';
export { type SetStop, type StopTarget, setDunningStop } from './set-dunning-stop.ts';
