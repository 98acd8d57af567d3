// A4 geometry after DIN 5008 form B (address field 45 mm from the top, 20 mm from the
// left edge), in PDF points, plus the few colours and type sizes the pieces share.
const MM = 72 / 25.4;

export const PAGE = { width: 595.28, height: 841.89 } as const;

export const MARGIN = { left: 25 * MM, right: PAGE.width - 20 * MM, top: 18 * MM } as const;
export const CONTENT_WIDTH = MARGIN.right - MARGIN.left;

/** DIN 5008 B: address field 45–90 mm from the top, sender line at the bottom of its note zone. */
export const ADDRESS = { x: 25 * MM, senderY: 57 * MM, y: 62.7 * MM, width: 80 * MM } as const;

/** Information block (Rechnungsnummer, Datum, …) at 125 mm from the left edge. */
export const INFO = { x: 125 * MM, y: 50 * MM, labelWidth: 26 * MM } as const;

export const TITLE_Y = 100 * MM;

/** The footer band with the company data; the body never writes below BODY_BOTTOM. */
export const FOOTER = { ruleY: PAGE.height - 27 * MM, pageNumberY: PAGE.height - 32 * MM } as const;
export const BODY_BOTTOM = FOOTER.pageNumberY - 6;

export const COLOR = { text: '#1a1a1a', muted: '#5c5c5c', accent: '#1f3a5f', rule: '#c8c8c8', band: '#eef1f5' } as const;

export const SIZE = { body: 9, small: 7.5, table: 8.5, title: 16, letterhead: 15 } as const;

export { MM };
