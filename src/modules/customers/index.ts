// Customers: the caller's customers mirrored by reference, each with a customer number.

export { customerView } from './customer-view.ts';
export { findCustomerByRef } from './customers.repository.ts';
export { registerCustomerRoutes } from './customers.routes.ts';
export { upsertCustomer } from './upsert-customer.ts';
