// The plan page's live updates: long-polls /app/plans/{id}/live with the version the page shows;
// the server answers once the plan changed (204 when it did not) with the new live part, which
// replaces the old one. That HTML is rendered and escaped by the server exactly as the page was.
// Without JavaScript the page still shows the plan as it was when loaded.
//
// The live part holds the review forms: while someone is filling one in (focus in a form, or a
// choice or text not yet sent), an update waits, so nothing typed is lost; it lands once they
// leave the form or send it.

const root = document.getElementById('plan-live');
const status = document.getElementById('live-status');

/** Whether a form in the live part has focus or input the person has not sent. */
function editing() {
  const active = document.activeElement;
  if (active && root.contains(active) && active.closest('form')) return true;
  for (const field of root.querySelectorAll('input, textarea, select')) {
    if (field.type === 'hidden') continue;
    if (field.type === 'radio' || field.type === 'checkbox') {
      if (field.checked !== field.defaultChecked) return true;
    } else if ('defaultValue' in field && field.value !== field.defaultValue) return true;
  }
  return false;
}

async function show(html, version) {
  while (editing()) {
    status.textContent = 'The plan changed: the page updates when you leave the form.';
    await new Promise((resolve) => setTimeout(resolve, 1000));
  }
  root.innerHTML = html;
  root.dataset.version = version;
  status.textContent = `Updated ${new Date().toLocaleTimeString()}.`;
}

async function follow() {
  let failures = 0;
  for (;;) {
    try {
      const url = `${root.dataset.liveUrl}?v=${encodeURIComponent(root.dataset.version)}`;
      const answer = await fetch(url, { credentials: 'same-origin', headers: { accept: 'text/html' } });
      if (answer.status === 200) await show(await answer.text(), answer.headers.get('x-plan-version') ?? '');
      else if (answer.status !== 204) throw new Error(`live update answered ${answer.status}`);
      failures = 0;
      // The server holds a request until the plan changes; a quick answer still waits a moment.
      await new Promise((resolve) => setTimeout(resolve, 1000));
    } catch {
      failures += 1;
      status.textContent = 'Live updates paused: reload the page to see the latest.';
      await new Promise((resolve) => setTimeout(resolve, Math.min(30_000, 1000 * 2 ** failures)));
    }
  }
}

if (root && status) void follow();
