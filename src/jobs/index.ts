// Background work: jobs (rows claimed by workers), outgoing events (the outbox) and
// daily tasks per company. See README.md for the rules a job or task must follow.

export { type Backoff, backoffDelayMs, DEFAULT_BACKOFF } from './backoff.ts';
export { type ClaimOptions, claimJobs, handBackUnstarted, releaseExpiredLeases, releaseJobsOfEndedProcesses } from './claim.ts';
export { type EnqueueJobInput, enqueueJob, eventRow, eventWrite, jobWrite, type RecordEventInput, recordEvent, recordEvents } from './enqueue.ts';
export { sendJobMail } from './job-mail.ts';
export {
  createJobRegistry,
  type DoneWrite,
  defineJob,
  type Job,
  type JobContext,
  type JobDefinition,
  type JobDone,
  type JobLog,
  type JobRegistry,
  type JobRow,
  type JobServices,
  jobRegistry,
  PermanentJobError,
} from './registry.ts';
export { type DueWorkOptions, type DueWorkSummary, runDueWork } from './run-due-work.ts';
export { type JobOutcome, runJob } from './run-job.ts';
export {
  createDailyTaskRegistry,
  type DailyTask,
  type DailyTaskContext,
  type DailyTaskOptions,
  type DailyTaskRegistry,
  type DailyTaskTally,
  dailyTaskRegistry,
  defineDailyTask,
  runDailyTasks,
} from './scheduler.ts';
export { DEFAULT_LEASE_MS, DEFAULT_OWNER_CHECK_MS, drainDueJobs, type JobDeps, type JobTally, startWorker, type Worker, type WorkerOptions } from './worker.ts';
