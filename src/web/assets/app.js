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
