// Contracts: recurring contracts with items, their billing calendar, usage and the billing run (issue 13).
import './billing-run.ts'; // registers the daily task contracts.billing and its job

export { BILL_CONTRACTS_JOB } from './billing-run.ts';
export { registerContractRoutes } from './contracts.routes.ts';
export { type ReportUsageResult, reportUsage, type UsageRecordInput } from './report-usage.ts';
export { type ContractInput, upsertContract } from './upsert-contract.ts';
