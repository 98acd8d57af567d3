import { defineDailyTask, defineJob } from '../../jobs/index.ts';
import { createDueNotices, SEND_NOTICE_JOB } from './create-notices.ts';
import { markOverdue } from './mark-overdue.ts';
import { type SendNoticePayload, sendNotice } from './send-notice.ts';

// The daily tasks and the job of this module, registered when the module is imported
// (index.ts). Overdue marking runs before dunning, per company.

defineDailyTask('invoices.overdue', markOverdue);
defineDailyTask('invoices.dunning', createDueNotices);

defineJob<SendNoticePayload>({
  name: SEND_NOTICE_JOB,
  schema: {
    type: 'object',
    additionalProperties: false,
    required: ['notice_id'],
    properties: { notice_id: { type: 'string', pattern: '^dun_[0-9a-z]{26}$' } },
  },
  async handler({ db, clock, job, mailer, log }) {
    const outcome = await sendNotice({ db, clock, mailer }, job);
    if (outcome !== 'sent') log(`notice ${job.payload.notice_id}: ${outcome}`);
  },
});
