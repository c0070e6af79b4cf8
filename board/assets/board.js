// The board: swaps in the server-rendered view whenever the log changes, and
// sends the operator buttons' requests with the page's token.
(function () {
  "use strict";
  const token = document.querySelector('meta[name="board-token"]').content;
  const view = document.getElementById("view");
  const live = document.getElementById("live");
  let pending = false;
  let again = false; // a change arrived while a refresh was running
  let actionFailedUntil = 0; // until then #live keeps a refused action's reason

  async function refresh() {
    if (pending) {
      again = true;
      return;
    }
    pending = true;
    again = false;
    try {
      const r = await fetch("/api/view", { credentials: "same-origin", cache: "no-store" });
      if (!r.ok) throw new Error(r.status + " " + r.statusText);
      const html = await r.text();
      // Keep what the person opened and where they were.
      const open = new Set([...view.querySelectorAll("details[open]")].map((d) => d.dataset.key));
      view.innerHTML = html;
      view.querySelectorAll("details").forEach((d) => { if (open.has(d.dataset.key)) d.open = true; });
      // A refused action's reason stays readable: the refusal itself changes
      // the log (hooks.refused), and the update it brings must not erase it.
      if (Date.now() >= actionFailedUntil) {
        live.textContent = "live · updated " + new Date().toLocaleTimeString();
        live.className = "live ok";
      }
    } catch (e) {
      live.textContent = "update failed: " + e.message;
      live.className = "live bad";
    } finally {
      pending = false;
      if (again) refresh();
    }
  }

  function connect() {
    const es = new EventSource("/api/events");
    es.addEventListener("hello", () => { live.textContent = "live"; live.className = "live ok"; });
    es.addEventListener("change", refresh);
    es.addEventListener("nudge", (ev) => notify(JSON.parse(ev.data)));
    es.onerror = () => { live.textContent = "reconnecting…"; live.className = "live bad"; };
  }

  view.addEventListener("click", async (ev) => {
    const b = ev.target.closest("button.act");
    if (!b) return;
    const card = b.closest("[data-session]");
    const action = b.dataset.action;
    let reason = "";
    if (action === "reject" || action === "cancel") {
      reason = window.prompt("Reason for " + action + " (optional):", "") || "";
    }
    b.disabled = true;
    try {
      // On a board over every project, the session's own project's log.
      const project = card.dataset.project ? "/api/projects/" + encodeURIComponent(card.dataset.project) : "/api";
      const r = await fetch(project + "/sessions/" + encodeURIComponent(card.dataset.session) + "/" + action, {
        method: "POST",
        credentials: "same-origin",
        headers: { "Content-Type": "application/json", "X-Board-Token": token },
        body: JSON.stringify({ reason: reason }),
      });
      if (!r.ok) throw new Error(await r.text());
      await refresh();
    } catch (e) {
      live.textContent = action + " failed: " + e.message;
      live.className = "live bad";
      actionFailedUntil = Date.now() + 15000;
      b.disabled = false;
    }
  });

  // Nudges (a session waits for you, was refused stops, paused, cancelled,
  // ended) as browser notifications while the page is open, once allowed.
  function notify(n) {
    if (!("Notification" in window) || Notification.permission !== "granted") return;
    new Notification("hook-loop: " + n.kind, { body: n.text, tag: n.session_id + "/" + n.kind });
  }
  const enable = document.getElementById("notify-on");
  if (enable && "Notification" in window && Notification.permission === "default") {
    enable.hidden = false;
    enable.addEventListener("click", async () => {
      await Notification.requestPermission();
      enable.hidden = true;
    });
  }

  connect();
})();
