/**
 * The views' stylesheet: the web app serves it from its assets, the ui:// resources inline it.
 * Colours fall back to the host's MCP Apps style variables when a chat host supplies them.
 */
export const VIEWS_CSS = `
.q-view{font-family:var(--font-sans,system-ui,sans-serif);color:var(--color-text-primary,#1b1f24);line-height:1.45;overflow-wrap:anywhere}
.q-view h2{font-size:1.25rem;margin:0 0 .25rem}
.q-view h3{font-size:1rem;margin:1rem 0 .5rem}
.q-question{margin:.25rem 0}
.q-muted{color:var(--color-text-secondary,#57606a)}
.q-status-line{margin:.25rem 0}
.q-progress{width:100%;height:.6rem}
.q-badge{display:inline-block;border-radius:.6rem;padding:0 .5rem;font-size:.85em;background:#eaeef2;color:#1b1f24}
.q-status-completed,.q-decision-approve{background:#dafbe1;color:#0a3a17}
.q-status-in_progress,.q-status-executing,.q-current{background:#ddf4ff;color:#0a3069}
.q-status-awaiting_review,.q-status-awaiting_input,.q-status-stalled{background:#fff8c5;color:#4d2d00}
.q-status-failed,.q-status-cancelled,.q-decision-reject{background:#ffebe9;color:#6e0f0b}
.q-steps,.q-hits{padding-left:1.5rem}
.q-step,.q-hit{margin:0 0 .75rem}
.q-step p,.q-hit p{margin:.15rem 0}
.q-type,.q-tag,.q-page{font-size:.85em;border:1px solid #d0d7de;border-radius:.3rem;padding:0 .3rem}
.q-failure{color:#a40e26}
.q-pre{white-space:pre-wrap;overflow-wrap:anywhere;background:#f6f8fa;padding:.5rem;border-radius:.3rem;max-height:20rem;overflow:auto}
.q-legs{font-size:.85em;color:var(--color-text-secondary,#57606a)}
.q-view a{color:var(--color-text-info,#0550ae)}
`;
