export { ServiceClient } from './service-client.ts';
export type { ClientOptions } from './client-options.ts';
export type { RequestGate } from './request-retry.ts';
export { loadPool, type Route, type ResponseInfo } from './http-transport.ts';
export { projectSchema, type ProjectRecord } from './project-schema.ts';
export { PROJECT_FIELDS, PROJECT_FIELD_KINDS, type ProjectFieldKind } from './project-fields.ts';
