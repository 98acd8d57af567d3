// Texts of the app: the people page's password reset, one-time passwords shown once, and the
// e-mail check of an invitation (pages/users.ts). German first; `en` has the same keys.

export const de = {
  resetPassword: 'Passwort zurücksetzen',
  resetPasswordLabel: (email: string) => `Passwort zurücksetzen für ${email}`,
  resetPasswordConfirm: (email: string) =>
    `Passwort von ${email} wirklich zurücksetzen? Alle Sitzungen der Person enden sofort; sie meldet sich mit einem neuen Einmal-Passwort an.`,
  resetTitle: (email: string) => `Das Passwort von ${email} wurde zurückgesetzt`,
  resetPassword1:
    'Alle Sitzungen der Person wurden beendet. Das neue Einmal-Passwort wird nur jetzt angezeigt. Geben Sie es der Person auf sicherem Weg; bei der nächsten Anmeldung legt sie ein eigenes fest:',
  shownOnce: 'Das Einmal-Passwort wurde nur einmal angezeigt. Wenn es verloren ist, setzen Sie das Passwort erneut zurück.',
  invalidEmail: 'Bitte geben Sie eine gültige E-Mail-Adresse an, z. B. name@firma.de.',
  foreignSignIn: 'Die Anmeldung kam von einer fremden Seite und wurde abgewiesen. Bitte melden Sie sich hier an.',
};

export const en: typeof de = {
  resetPassword: 'Reset password',
  resetPasswordLabel: (email: string) => `Reset password for ${email}`,
  resetPasswordConfirm: (email: string) =>
    `Really reset the password of ${email}? Every session of the person ends at once; they sign in with a new one-time password.`,
  resetTitle: (email: string) => `The password of ${email} was reset`,
  resetPassword1:
    'Every session of the person has ended. The new one-time password is shown only now. Hand it over safely; at the next sign-in the person chooses their own:',
  shownOnce: 'The one-time password was shown only once. If it is lost, reset the password again.',
  invalidEmail: 'Please enter a valid e-mail address, e.g. name@company.com.',
  foreignSignIn: 'The sign-in came from another site and was refused. Please sign in here.',
};
