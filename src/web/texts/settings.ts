// Texts of the app: Company settings, mailbox and test mail, dunning policy, period locks (pages/settings.ts, pages/period-locks.ts).
// German first; `en` has the same keys (a missing one is a type error).

export const de = {
  title: '',
};

export const en: typeof de = {
  title: '',
};
