// Contracts: recurring contracts with items, their billing calendar, usage and the billing run (issue 13).
export { registerContractRoutes } from './contracts.routes.ts';
export { type ContractInput, upsertContract } from './upsert-contract.ts';
