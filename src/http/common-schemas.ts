// Schema pieces shared by the routes (interface §8 limits).

export const SOURCE_PATTERN = '^[a-z0-9][a-z0-9_-]{0,49}$';
export const EXTERNAL_REF_PATTERN = '^[A-Za-z0-9][A-Za-z0-9._:@+-]{0,254}$';

export const byRefParams = {
  type: 'object',
  additionalProperties: false,
  required: ['source', 'external_ref'],
  properties: {
    source: { type: 'string', pattern: SOURCE_PATTERN, description: "Name of the caller's system" },
    external_ref: { type: 'string', pattern: EXTERNAL_REF_PATTERN, description: "The caller's id of the record" },
  },
} as const;

export const nullableString = (maxLength: number, extra: Record<string, unknown> = {}) => ({ type: ['string', 'null'], maxLength, ...extra }) as const;

export const errorResponse = {
  type: 'object',
  description: 'A refusal; detail.code is the stable machine-readable code',
  required: ['detail'],
  properties: {
    detail: {
      type: 'object',
      required: ['code'],
      additionalProperties: true,
      properties: {
        code: { type: 'string' },
        message: { type: 'string' },
        errors: {
          type: 'array',
          items: {
            type: 'object',
            properties: {
              loc: { type: 'array', items: { type: ['string', 'integer'] } },
              type: { type: 'string' },
              msg: { type: 'string' },
            },
          },
        },
      },
    },
  },
} as const;

export const errorResponses = { '4xx': errorResponse, '5xx': errorResponse } as const;

/** Routes that take no query parameters refuse any (design §3: unknown fields are refused everywhere). */
export const noQuery = { type: 'object', additionalProperties: false, properties: {} } as const;
