// The part of mt940js (1.3.x) that mt940.ts uses; the package ships no types.
declare module 'mt940js' {
  export type Tag = {
    /** 20, 25, 28, 60, 61, 62, 64, 65, 86, 'NS' or 'MB' (60F and 60M are both 60). */
    id: number | string;
    /** The tag's text after `:NN[X]:`, continuation lines joined with \n. */
    data: string;
    fields: Record<string, unknown>;
  };

  export type Transaction = {
    date: Date;
    entryDate: Date | '';
    fundsCode: string;
    /** A float with sign: do not use for money (mt940.ts reads the amount text of the :61: tag). */
    amount: number;
    isReversal: boolean;
    transactionType: string;
    reference: string;
    bankReference: string;
    extraDetails: string;
    currency: string;
    details: string;
    structuredDetails?: Record<string, string>;
  };

  export type Statement = {
    transactionReference: string;
    relatedReference: string;
    accountIdentification: string;
    number: { statement: string; sequence: string; section: string };
    currency: string;
    openingBalanceDate: Date;
    closingBalanceDate: Date;
    informationToAccountOwner?: string;
    transactions: Transaction[];
    /** Present when parse(data, true). */
    tags?: Tag[];
  };

  export class Parser {
    constructor(options?: { no86Structure?: boolean });
    parse(data: string, withTags?: boolean): Statement[];
    /** Checks mandatory tags, currencies and balances of one statement (1-based index); throws Error. */
    protected _validateGroup(group: Tag[], index: number): void;
  }

  const mt940js: { Parser: typeof Parser };
  export default mt940js;
}
