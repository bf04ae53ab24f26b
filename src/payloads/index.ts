// The payloads the mapping layer builds and the API client sends: one neutral home, so that
// mapping never imports api (the design's layering) and both read the same schemas.
export { estimatePayloadSchema, type EstimatePayload } from './estimate-schema.ts';
export { ESTIMATE_COMMON_FIELDS, ESTIMATE_LINE_FIELDS, ESTIMATE_MARKUP_FIELDS, ESTIMATE_TOP_FIELDS, type EstimateFieldType } from './estimate-fields.ts';
export { billPayloadSchema, type BillPayload, type BillItem } from './bill-schema.ts';
export { encodeBillInfo, billQueryString, MAX_BILL_QUERY_LENGTH } from './bill-info.ts';
export { payloadInvalid } from './payload-issues.ts';
