import { type Html, html } from '../html.ts';
import { MIN_PASSWORD_LENGTH } from './sign-in.ts';

// The password change form of the app and of the partner portal: the same fields, the
// same rules (shared/passwords.ts), in each one's words. `hidden`: the CSRF field(s).

type PasswordTexts = {
  currentPassword: string;
  newPassword: string;
  passwordHint: (n: number) => string;
  repeatPassword: string;
  changePassword: string;
};

export function passwordChangeForm(t: PasswordTexts, action: string, hidden: Html, email: string): Html {
  return html`<form method="post" action="${action}" class="form">
${hidden}
<input type="text" name="username" autocomplete="username" value="${email}" hidden>
<label for="current">${t.currentPassword}</label>
<input id="current" name="current" type="password" autocomplete="current-password" required>
<label for="next">${t.newPassword}</label>
<input id="next" name="next" type="password" autocomplete="new-password" minlength="${MIN_PASSWORD_LENGTH}" required aria-describedby="next-hint">
<p id="next-hint" class="hint">${t.passwordHint(MIN_PASSWORD_LENGTH)}</p>
<label for="repeat">${t.repeatPassword}</label>
<input id="repeat" name="repeat" type="password" autocomplete="new-password" minlength="${MIN_PASSWORD_LENGTH}" required>
<button type="submit" class="primary">${t.changePassword}</button>
</form>`;
}
