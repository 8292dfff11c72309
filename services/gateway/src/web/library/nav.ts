import type { NavItem } from '../shell/layout.js';

/** The library's places in the app's navigation. */
export const LIBRARY_NAV: readonly NavItem[] = [
  { href: '/app/plans', label: 'Plans' },
  { href: '/app/artifacts', label: 'Artifacts' },
  { href: '/app/search', label: 'Search' },
  { href: '/app/reviews', label: 'Reviews' },
];
