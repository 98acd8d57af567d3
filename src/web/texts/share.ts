// Texts of the app: Revenue share: statements and attributions (pages/statements.ts, pages/attributions.ts).
// German first; `en` has the same keys (a missing one is a type error).

export const de = {
  title: '',
  /** Labels of this area's audit-trail actions (shown on /app/audit). */
  auditActions: {} as Record<string, string>,
};

export const en: typeof de = {
  title: '',
  auditActions: {},
};
