import { escapeHtml } from '../../http/html-document.js';
import type { AppOrg, AppUser } from './app-user.js';

/** A link of the app's navigation; `admins` ones show only to an org's admins and owners. */
export interface NavItem {
  href: string;
  label: string;
  admins?: boolean;
}

export interface PageInput {
  title: string;
  /** The page's content (already HTML: every stored value in it escaped or sanitised). */
  body: string;
  /** The signed-in person, their org and the form token: with them the page has the nav and the sign-out form. */
  viewer?: { user: AppUser; org: AppOrg; csrf: string };
  /** The path of the page, to mark the nav item it belongs to. */
  path?: string;
  /** Same-origin ES modules from /app/assets, by file name. */
  scripts?: readonly string[];
  /** Stylesheets from /app/assets beside the app's own, by file name. */
  styles?: readonly string[];
}

/**
 * The app's document: one stylesheet and the page's modules from /app/assets (the CSP allows no
 * inline script or style), a skip link, the navigation and the person's org, then the page in
 * <main>. Without a viewer (sign-in, errors before sign-in) it is the page alone.
 */
export function renderPage(nav: readonly NavItem[], page: PageInput): string {
  const styles = (page.styles ?? [])
    .map((name) => `<link rel="stylesheet" href="/app/assets/${escapeHtml(name)}">\n`)
    .join('');
  const scripts = (page.scripts ?? [])
    .map((name) => `<script type="module" src="/app/assets/${escapeHtml(name)}"></script>`)
    .join('\n');
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>${escapeHtml(page.title)} · Quarry</title>
<link rel="stylesheet" href="/app/assets/app.css">
${styles}${scripts}
</head>
<body>
<a class="skip" href="#main">Skip to content</a>
<header class="top">
<a class="brand" href="/app">Quarry</a>
${page.viewer ? navigation(nav, page.viewer, page.path ?? '') : ''}
</header>
<main id="main">
${page.body}
</main>
</body>
</html>`;
}

function navigation(nav: readonly NavItem[], viewer: NonNullable<PageInput['viewer']>, path: string): string {
  const admin = viewer.org.role !== 'member';
  const links = nav
    .filter((item) => admin || !item.admins)
    .map((item) => {
      const current = path === item.href || path.startsWith(`${item.href}/`);
      return `<li><a href="${escapeHtml(item.href)}"${current ? ' aria-current="page"' : ''}>${escapeHtml(item.label)}</a></li>`;
    })
    .join('');
  return `<nav aria-label="Main"><ul>${links}</ul></nav>
<div class="who">
<span>${escapeHtml(viewer.user.name || viewer.user.email)}${viewer.user.orgs.length > 1 ? '' : ` · ${escapeHtml(viewer.org.name)}`}</span>
${viewer.user.orgs.length > 1 ? orgSwitch(viewer) : ''}
<form method="post" action="/app/sign-out"><input type="hidden" name="csrf" value="${escapeHtml(viewer.csrf)}"><button type="submit" class="link">Sign out</button></form>
</div>`;
}

/** The organizations a person may work in, for one who belongs to several. */
function orgSwitch(viewer: NonNullable<PageInput['viewer']>): string {
  const options = viewer.user.orgs
    .map(
      (org) =>
        `<option value="${escapeHtml(org.slug)}"${org.id === viewer.org.id ? ' selected' : ''}>${escapeHtml(org.name)}</option>`,
    )
    .join('');
  return `<form method="post" action="/app/org"><input type="hidden" name="csrf" value="${escapeHtml(viewer.csrf)}"><label for="org-switch" class="inline">Organization</label> <select id="org-switch" name="org">${options}</select> <button type="submit" class="secondary small">Switch</button></form>`;
}
