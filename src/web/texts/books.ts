// Texts of the app: Dunning notices that failed, DATEV export, export progress (pages/dunning.ts, pages/exports.ts).
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
