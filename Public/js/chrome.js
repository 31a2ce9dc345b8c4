// The chrome every page shares, written once: the skip link, the header with the navigation, the language
// switch and the access-code form. A page holds only `<header class="top" data-page="…"></header>`; the
// navigation's own entry is marked `aria-current="page"`.

/** The pages of the navigation, in order: [page, address, translation key]. */
export const PAGES = [
  ['live', '/', 'nav.live'],
  ['history', 'history.html', 'nav.history'],
  ['progress', 'progress.html', 'nav.progress'],
  ['watch', 'watch.html', 'nav.watch'],
  ['exercises', 'exercises.html', 'nav.exercises'],
  ['patients', 'patients.html', 'nav.patients'],
];

const TOOLS = `
  <div class="top-tools">
    <label><span data-i18n="lang.label">Language</span>
      <select id="lang"><option value="en">English</option><option value="es">Español</option></select></label>
    <details class="token">
      <summary data-i18n="token.summary">Access code</summary>
      <form id="token-form">
        <label for="token" data-i18n="token.label">Access code</label>
        <input id="token" type="password" autocomplete="off">
        <button id="token-save" type="submit" data-i18n="token.save">Save</button>
        <span id="token-status" role="status"></span>
      </form>
    </details>
  </div>`;

/**
 * Fills the page's `header.top` (and puts the skip link before it) for the page its `data-page` names.
 * Texts are filled in by the translation pass that follows (`apply`).
 * @returns {HTMLElement|null} The header, or null on a page without one.
 */
export function renderChrome(doc = document) {
  const header = doc.querySelector('header.top');
  if (!header || header.dataset.rendered) return header;
  const page = header.dataset.page;
  const nav = doc.createElement('nav');
  nav.setAttribute('aria-label', 'Main');
  nav.dataset.i18nLabel = 'nav.label';
  for (const [name, href, key] of PAGES) {
    const a = doc.createElement('a');
    a.href = href;
    a.dataset.i18n = key;
    if (name === page) a.setAttribute('aria-current', 'page');
    nav.append(a);
  }
  header.replaceChildren(nav);
  header.insertAdjacentHTML('beforeend', TOOLS);
  // Saving is the button's click (bindTokenForm); Enter in the field must not submit, and so reload, the page. A
  // listener, not an `onsubmit` attribute: the Content-Security-Policy runs no inline script.
  header.querySelector('#token-form').addEventListener('submit', (e) => e.preventDefault());
  if (!doc.querySelector('a.skip')) {
    const skip = doc.createElement('a');
    skip.className = 'skip';
    skip.href = '#main';
    skip.dataset.i18n = 'a11y.skip';
    header.before(skip);
  }
  header.dataset.rendered = 'true';
  // On a phone the navigation may scroll sideways: the page's own entry is brought into view.
  const current = nav.querySelector('[aria-current="page"]');
  if (current) requestAnimationFrame(() => { nav.scrollLeft = Math.max(0, current.offsetLeft + current.offsetWidth - nav.clientWidth); });
  return header;
}
