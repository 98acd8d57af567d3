import { formatCentsMoney as money } from '../../shared/german-format.ts';
import { formatCents } from '../../shared/money.ts';
import { exactLineNet } from '../invoicing/index.ts';
import type { PlannedLine } from './billing-plan.ts';

// What an invoice can carry of a contract's credits (issue 24). An invoice's net per VAT
// rate never goes below zero: per rate, the credits — those carried from earlier billings
// first, oldest first, then this billing's credit lines in their order — go on the invoice
// up to the sum of its positive lines at that rate. A credit that does not fit in full goes
// on with the part that fits, its text saying how much of it is used and how much follows;
// the rest is carried (contract_credits) to the next invoice at the same rate. Amounts in
// integer cents; splitting a credit rounds nothing. Pure.

/** A credit carried from an earlier billing, with what is still open of it. */
export type OpenCredit = {
  billingDate: string;
  position: number;
  itemRef: string;
  vatRate: 0 | 7 | 19;
  description: string;
  servicePeriod: { start: string; end: string };
  amountCents: number;
  openCents: number;
};

/** A credit of this billing that the invoice does not carry in full: stored whole; `usedCents` went on the invoice. */
export type NewCredit = Omit<OpenCredit, 'billingDate' | 'openCents'> & { usedCents: number };

/** What the invoice used of a carried credit. */
export type CreditUse = { billingDate: string; position: number; amountCents: number };

export type SettledLines = { lines: PlannedLine[]; uses: CreditUse[]; credits: NewCredit[] };

/** A credit line: quantity −1 at the amount (an invoice's price is never negative, EN 16931 BR-27). */
const creditLine = (of: Pick<PlannedLine, 'itemRef' | 'vatRate' | 'servicePeriod'>, cents: number, description: string): PlannedLine => ({
  description,
  quantity: '-1',
  unit: null,
  unitPriceNet: formatCents(cents),
  itemRef: of.itemRef,
  vatRate: of.vatRate,
  servicePeriod: of.servicePeriod,
});

/** The invoice's lines with the credits it can carry, the uses of carried credits and the credits to carry on. */
export function applyCredits(planned: readonly PlannedLine[], open: readonly OpenCredit[]): SettledLines {
  const nets = planned.map((line) => Number(exactLineNet(line)));
  const room = new Map<number, number>();
  planned.forEach((line, i) => {
    if (nets[i]! > 0) room.set(line.vatRate, (room.get(line.vatRate) ?? 0) + nets[i]!);
  });
  const take = (vatRate: number, cents: number) => {
    const used = Math.min(cents, room.get(vatRate) ?? 0);
    room.set(vatRate, (room.get(vatRate) ?? 0) - used);
    return used;
  };

  const carried: PlannedLine[] = [];
  const uses: CreditUse[] = [];
  for (const credit of [...open].sort((a, b) => (a.billingDate < b.billingDate ? -1 : a.billingDate > b.billingDate ? 1 : a.position - b.position))) {
    const used = take(credit.vatRate, credit.openCents);
    if (used === 0) continue;
    uses.push({ billingDate: credit.billingDate, position: credit.position, amountCents: used });
    const rest = credit.openCents - used;
    const first = credit.openCents === credit.amountCents;
    const text = first
      ? rest === 0
        ? credit.description
        : `${credit.description}; Gutschrift ${money(credit.amountCents)}, davon hier verrechnet ${money(used)}, ${money(rest)} mit der nächsten Rechnung`
      : rest === 0
        ? `${credit.description}; Rest der Gutschrift über ${money(credit.amountCents)}`
        : `${credit.description}; Rest der Gutschrift über ${money(credit.amountCents)}, davon hier verrechnet ${money(used)}, ${money(rest)} mit der nächsten Rechnung`;
    carried.push(creditLine(credit, used, text));
  }

  const lines: PlannedLine[] = [];
  const credits: NewCredit[] = [];
  planned.forEach((line, i) => {
    const net = nets[i]!;
    if (net >= 0) {
      lines.push(line);
      return;
    }
    const amount = -net;
    const used = take(line.vatRate, amount);
    if (used < amount)
      credits.push({
        position: credits.length + 1,
        itemRef: line.itemRef,
        vatRate: line.vatRate,
        description: line.description,
        servicePeriod: line.servicePeriod,
        amountCents: amount,
        usedCents: used,
      });
    if (used === amount) lines.push(line);
    else if (used > 0)
      lines.push(
        creditLine(
          line,
          used,
          `${line.description}; Gutschrift ${money(amount)}, davon hier verrechnet ${money(used)}, ${money(amount - used)} mit der nächsten Rechnung`,
        ),
      );
  });
  return { lines: [...carried, ...lines], uses, credits };
}
