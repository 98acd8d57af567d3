// A4 geometry after DIN 5008 form B (address field 45 mm from the top, 20 mm from the
// left edge), in PDF points, plus the few colours and type sizes the pieces share.
const MM = 72 / 25.4;

export const PAGE = { width: 595.28, height: 841.89 } as const;

export const MARGIN = { left: 25 * MM, right: PAGE.width - 20 * MM, top: 18 * MM } as const;
export const CONTENT_WIDTH = MARGIN.right - MARGIN.left;

/**
 * DIN 5008 B: address field 45–90 mm from the top; the sender line (Rücksendeangabe) at the
 * bottom of its zone, the recipient in the address zone from 62.7 to 90 mm (`bottom`).
 */
export const ADDRESS = { x: 25 * MM, senderY: 57 * MM, y: 62.7 * MM, width: 80 * MM, bottom: 90 * MM } as const;

/** Information block (Rechnungsnummer, Datum, …) at 125 mm from the left edge. */
export const INFO = { x: 125 * MM, y: 50 * MM, labelWidth: 26 * MM } as const;

export const TITLE_Y = 100 * MM;

/**
 * The footer band with the company data: its rule at 27 mm above the page edge, its text
 * ending 8 mm above it at the latest. A footer with more lines grows upwards; the body then
 * ends higher (footer.ts lays it out, page-flow.ts keeps the body above it).
 */
export const FOOTER = { ruleY: PAGE.height - 27 * MM, textBottom: PAGE.height - 8 * MM } as const;

/** The running head of continuation pages ends here; the body goes on below. */
export const CONTINUATION_TOP = MARGIN.top + 22;

export const COLOR = { text: '#1a1a1a', muted: '#5c5c5c', accent: '#1f3a5f', rule: '#c8c8c8', band: '#eef1f5' } as const;

export const SIZE = { body: 9, small: 7.5, table: 8.5, title: 16, letterhead: 15 } as const;

export { MM };
