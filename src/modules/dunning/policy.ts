import { D } from '../../shared/decimal.ts';
import { centsNumber } from '../../shared/money.ts';

// The company's dunning policy (design §5, german-rules §4): when the payment reminder
// (level 0) and the Mahnungen (levels 1, 2 and optionally 3) go out, what each costs, and
// whether default interest and the § 288 Abs. 5 lump sum are claimed. Set with the
// optional `dunning` key of the company file; every key may be left out (its default
// applies), `"dunning": null` returns to the defaults.

export type DunningPolicy = {
  /** false: no notices at all (overdue marking still runs). */
  enabled: boolean;
  /** The payment reminder goes out this many days after the due date. */
  reminder_days: number;
  /** Each further level this many days after the previous notice. */
  interval_days: number;
  /** The highest Mahnung level: 2, or 3 for a "Letzte Mahnung". */
  levels: 2 | 3;
  /** Fee per level as a decimal string ("2.50"), index = level; the reminder's is "0.00". */
  fees: string[];
  /** Default interest (§ 288 Abs. 1/2 BGB) from level 1. */
  interest: boolean;
  /** The 40 EUR lump sum (§ 288 Abs. 5 BGB) from level 1, for business customers only. */
  lump_sum: boolean;
  /** The new payment deadline printed on a notice: notice date + this many days. */
  deadline_days: number;
};

const DEFAULT_FEES = ['0.00', '2.50', '5.00', '5.00'];

export const DEFAULT_POLICY: DunningPolicy = {
  enabled: true,
  reminder_days: 7,
  interval_days: 14,
  levels: 2,
  fees: DEFAULT_FEES.slice(0, 3),
  interest: true,
  lump_sum: true,
  deadline_days: 10,
};

const days = (max: number) => ({ type: 'integer', minimum: 1, maximum: max }) as const;

/** JSON Schema of the company file's `dunning` key (strict: unknown keys refused). */
export const dunningPolicySchema = {
  type: ['object', 'null'],
  additionalProperties: false,
  properties: {
    enabled: { type: 'boolean' },
    reminder_days: days(90),
    interval_days: days(90),
    levels: { type: 'integer', enum: [2, 3] },
    fees: { type: 'array', minItems: 3, maxItems: 4, items: { type: 'string', pattern: '^(0|[1-9][0-9]?)\\.[0-9]{2}$' } },
    interest: { type: 'boolean' },
    lump_sum: { type: 'boolean' },
    deadline_days: days(60),
  },
} as const;

/**
 * The policy a company file's `dunning` value (already checked against the schema) sets,
 * with every key filled in, or the problems found. `null` means "back to the defaults".
 */
export function parseDunningPolicy(value: Partial<DunningPolicy> | null): { policy: DunningPolicy | null; problems: string[] } {
  if (value === null) return { policy: null, problems: [] };
  const levels = value.levels ?? DEFAULT_POLICY.levels;
  const fees = value.fees ?? DEFAULT_FEES.slice(0, levels + 1);
  const problems: string[] = [];
  if (fees.length !== levels + 1) {
    problems.push(`dunning.fees: needs ${levels + 1} amounts, one per level 0 to ${levels} (levels is ${levels}), got ${fees.length}`);
  }
  if (fees[0] !== undefined && !new D(fees[0]).isZero()) {
    problems.push('dunning.fees: the payment reminder (level 0) carries no fee, so the first amount must be "0.00"');
  }
  if (problems.length > 0) return { policy: null, problems };
  return { policy: { ...DEFAULT_POLICY, ...value, levels, fees: fees.map((fee) => new D(fee).toFixed(2)) }, problems };
}

/** The policy in force for a company (its stored one, else the defaults). */
export function policyOf(stored: DunningPolicy | null | undefined): DunningPolicy {
  return stored ? { ...DEFAULT_POLICY, ...stored } : DEFAULT_POLICY;
}

/** The fee of a level in cents (0 for the reminder and for a level the policy does not price). */
export function feeCents(policy: DunningPolicy, level: number): number {
  if (level === 0) return 0;
  const fee = policy.fees[level];
  return fee === undefined ? 0 : centsNumber(new D(fee).times(100));
}
