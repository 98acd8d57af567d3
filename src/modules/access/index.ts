// Access: organisations, users, memberships, companies and API keys (the person side).
export { AdminError } from './admin-error.ts';
export { API_KEY_PATTERN, generateApiKey, hashApiKey, SCOPES, type Scope } from './api-keys.ts';
export { bootstrapOrganization } from './bootstrap-organization.ts';
export { CompanyFileError, parseCompanyFile } from './company-file.ts';
export { createApiKey, parseScopes, revokeApiKey } from './manage-api-keys.ts';
export { deactivateUser, removeCompanyAccess, setUserRole } from './manage-users.ts';
export { updateCompany } from './update-company.ts';
