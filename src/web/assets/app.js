// Kontor back-office: small enhancements; every page works without them.
// "/" focuses the search field; Escape closes open menus; a click outside closes them too.
document.addEventListener('keydown', (event) => {
  const target = event.target;
  const typing = target instanceof HTMLInputElement || target instanceof HTMLSelectElement || target instanceof HTMLTextAreaElement;
  if (event.key === '/' && !typing) {
    const search = document.querySelector('input[type="search"]');
    if (search) {
      event.preventDefault();
      search.focus();
    }
  }
  if (event.key === 'Escape') {
    for (const open of document.querySelectorAll('details.menu[open]')) {
      open.removeAttribute('open');
      open.querySelector('summary')?.focus();
    }
  }
});
document.addEventListener('click', (event) => {
  for (const open of document.querySelectorAll('details.menu[open]')) {
    if (!open.contains(event.target)) open.removeAttribute('open');
  }
});
// The menu button on a phone (layout.ts): with script the navigation is folded away and opens
// under the button; without script it stands below the content (app.css, .js).
document.documentElement.classList.add('js');
const navToggle = document.querySelector('.nav-toggle');
const navMenu = navToggle && document.getElementById(navToggle.getAttribute('aria-controls'));
if (navToggle && navMenu) {
  const setNav = (open) => {
    navToggle.setAttribute('aria-expanded', String(open));
    navMenu.classList.toggle('open', open);
  };
  navToggle.addEventListener('click', () => setNav(navToggle.getAttribute('aria-expanded') !== 'true'));
  document.addEventListener('keydown', (event) => {
    if (event.key !== 'Escape' || navToggle.getAttribute('aria-expanded') !== 'true' || navToggle.offsetParent === null) return;
    setNav(false);
    navToggle.focus();
  });
}
// Long-running forms (bank import): show progress and keep the button from a second click.
document.addEventListener('submit', (event) => {
  const form = event.target;
  if (!(form instanceof HTMLFormElement) || !form.dataset.progress) return;
  const button = form.querySelector('button[type="submit"]');
  const label = button?.textContent;
  if (button) {
    button.disabled = true;
    button.textContent = form.dataset.progress;
  }
  form.setAttribute('aria-busy', 'true');
  // A download (DATEV export) leaves the page where it is: the form is ready again once the
  // file has arrived, which the browser does not tell a page; a few seconds after, or when
  // the window gets the focus back from the save dialog.
  if (form.dataset.download !== undefined) {
    const ready = () => {
      if (button) {
        button.disabled = false;
        button.textContent = label;
      }
      form.removeAttribute('aria-busy');
    };
    setTimeout(ready, 4000);
    window.addEventListener('focus', ready, { once: true });
  }
});
// A form that changes something is sent once: a second click while the page waits is
// ignored and its button disabled (the server also runs each form's step once: _once).
document.addEventListener('submit', (event) => {
  const form = event.target;
  if (!(form instanceof HTMLFormElement) || form.method !== 'post' || event.defaultPrevented) return;
  if (form.dataset.sending && form.dataset.download === undefined) {
    event.preventDefault();
    return;
  }
  form.dataset.sending = '1';
  // After the browser has taken the button's value (a disabled button sends none).
  setTimeout(() => {
    for (const button of form.querySelectorAll('button[type="submit"]')) button.disabled = true;
  });
  if (form.dataset.download !== undefined) setTimeout(() => ready(form), 4000);
});
function ready(form) {
  delete form.dataset.sending;
  for (const button of form.querySelectorAll('button[type="submit"]')) button.disabled = false;
}
// Back to a page from the browser's cache: its forms are ready again.
window.addEventListener('pageshow', (event) => {
  if (event.persisted) for (const form of document.querySelectorAll('form[data-sending]')) ready(form);
});
// A form with data-confirm asks before it sends (cancel, revoke, lock); without script it sends at once.
document.addEventListener(
  'submit',
  (event) => {
    const form = event.target;
    if (form instanceof HTMLFormElement && form.dataset.confirm && !window.confirm(form.dataset.confirm)) {
      event.preventDefault();
      event.stopImmediatePropagation();
    }
  },
  true,
);
