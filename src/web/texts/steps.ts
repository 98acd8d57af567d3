// Texts of the app: steps that cannot happen by accident (issue 25 §3) — a form sent twice,
// the statement's mail, the payout run's confirmation, replacing a payout account, secrets
// shown once. German first; `en` has the same keys (a missing one is a type error).

export const de = {
  alreadyDone: 'Bereits erledigt',
  alreadyDoneHint: 'Dieses Formular wurde bereits gesendet. Der Schritt wurde einmal ausgeführt und nicht ein zweites Mal.',
  stillRunning: 'Wird noch ausgeführt',
  stillRunningHint:
    'Dieses Formular wurde bereits gesendet und wird gerade ausgeführt. Bitte laden Sie die Seite in einigen Sekunden neu; der Schritt wird nicht ein zweites Mal ausgeführt.',
  back: 'Zurück zur Seite',
  // Statement mail
  mailQueued: (email: string) => `Der Versand per E-Mail an ${email} ist beauftragt und läuft im Hintergrund. Ein zweiter Versand wird nicht angeboten.`,
  mailFailed: (reason: string) => `Der Versand per E-Mail ist fehlgeschlagen: ${reason}`,
  resend: 'Erneut senden',
  resendHint: (email: string) => `Versendet die Abrechnung noch einmal an ${email}.`,
  resendConfirm: 'Abrechnung wirklich erneut per E-Mail senden?',
  alreadySent: (email: string) => `Bereits per E-Mail an ${email} versendet.`,
  sendQueuedRefused: 'Die Abrechnung wird bereits per E-Mail versendet; sie wurde nicht ein zweites Mal gesendet.',
  // Payout run
  nothingChosenHint:
    'Wählen Sie die Abrechnungen aus, die ausgezahlt werden sollen; vorausgewählt ist keine. Im nächsten Schritt prüfen und bestätigen Sie die Auszahlung.',
  review: 'Auszahlung prüfen',
  confirmTitle: 'Auszahlung bestätigen',
  confirmIntro: 'Noch ist nichts als bezahlt vermerkt. Bitte prüfen Sie die Auszahlung, bevor Sie sie ausführen:',
  count: 'Überweisungen',
  total: 'Gesamtbetrag',
  debtorAccount: 'Von Konto',
  noDebtorAccount: 'keine Bankverbindung hinterlegt (Einstellungen)',
  confirmRun: 'Auszahlung ausführen und als bezahlt vermerken',
  confirmRunHint: 'Die Abrechnungen werden als bezahlt vermerkt und gebucht; danach laden Sie die SEPA-Datei für Ihre Bank herunter.',
  changeSelection: 'Auswahl ändern',
  // Payout account
  replaceTitle: 'Auszahlungskonto ersetzen?',
  replaceIntro:
    'Künftige Auszahlungen an diesen Partner gehen auf das neue Konto. Bitte prüfen Sie es (z. B. mit der Rechnung oder einem Schreiben des Partners).',
  oldAccount: 'Bisheriges Konto',
  newAccount: 'Neues Konto',
  confirmReplace: 'Konto ersetzen',
  cancel: 'Abbrechen',
  // Secrets shown once
  shownOnce: 'Nur einmal angezeigt',
  keyShownOnce:
    'Der neue Schlüssel wurde bereits einmal angezeigt und wird nicht noch einmal gezeigt. Falls Sie ihn nicht gespeichert haben, widerrufen Sie ihn und erstellen Sie einen neuen.',
  secretShownOnce:
    'Das Signatur-Geheimnis wurde bereits einmal angezeigt und wird nicht noch einmal gezeigt. Falls Sie es nicht gespeichert haben, entfernen Sie den Endpunkt und legen Sie ihn neu an.',
  passwordShownOnce:
    'Das Einmal-Passwort wurde bereits einmal angezeigt und wird nicht noch einmal gezeigt. Falls es verloren ist, setzen Sie das Passwort der Person zurück.',
};

export type StepTexts = typeof de;

export const en: StepTexts = {
  alreadyDone: 'Already done',
  alreadyDoneHint: 'This form was already sent. The step was carried out once and not a second time.',
  stillRunning: 'Still running',
  stillRunningHint: 'This form was already sent and is being carried out. Please reload the page in a few seconds; the step is not carried out a second time.',
  back: 'Back to the page',
  mailQueued: (email: string) => `Sending by e-mail to ${email} is queued and runs in the background. A second sending is not offered.`,
  mailFailed: (reason: string) => `Sending by e-mail failed: ${reason}`,
  resend: 'Send again',
  resendHint: (email: string) => `Sends the statement to ${email} once more.`,
  resendConfirm: 'Really send the statement by e-mail again?',
  alreadySent: (email: string) => `Already sent by e-mail to ${email}.`,
  sendQueuedRefused: 'The statement is already being sent by e-mail; it was not sent a second time.',
  nothingChosenHint: 'Choose the statements to pay out; none is preselected. In the next step you review and confirm the payout.',
  review: 'Review payout',
  confirmTitle: 'Confirm payout',
  confirmIntro: 'Nothing is marked paid yet. Please review the payout before you carry it out:',
  count: 'Transfers',
  total: 'Total',
  debtorAccount: 'From account',
  noDebtorAccount: 'no bank account set (settings)',
  confirmRun: 'Carry out the payout and mark paid',
  confirmRunHint: 'The statements are marked paid and booked; then you download the SEPA file for your bank.',
  changeSelection: 'Change selection',
  replaceTitle: 'Replace the payout account?',
  replaceIntro: 'Future payouts to this partner go to the new account. Please check it (e.g. against the partner’s invoice or letter).',
  oldAccount: 'Current account',
  newAccount: 'New account',
  confirmReplace: 'Replace account',
  cancel: 'Cancel',
  shownOnce: 'Shown only once',
  keyShownOnce: 'The new key was already shown once and is not shown again. If you did not save it, revoke it and create a new one.',
  secretShownOnce: 'The signing secret was already shown once and is not shown again. If you did not save it, remove the endpoint and add it again.',
  passwordShownOnce: 'The one-time password was already shown once and is not shown again. If it is lost, reset the person’s password.',
};
