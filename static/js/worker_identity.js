/* The local crowd's browser identity and task activity (see mturk/views/worker_identity.py, services/activity.py).
   Identity: the task page keeps its signed identity token (data-identity) in the page's storage; the start page
   sends it back in its form (#identity-field), so a browser that blocks our cookie (an iframe on another site) is
   still the same worker when the link is opened again. The cookie, when the browser keeps it, does the same.
   Activity: the task page reports that the worker is active (keyboard, pointer, typing; at most one report per
   data-activity-every seconds) and, on pagehide, that the page was left, so a task left idle goes back to other
   workers before its time limit. The answer is still taken within the time limit (task.js). No cookie is sent. */
(function () {
  "use strict";
  var KEY = "local-worker";

  function stores() {  // the storages this page may use (blocked ones throw)
    var out = [];
    ["localStorage", "sessionStorage"].forEach(function (name) {
      try {
        var store = window[name];
        store.setItem(KEY + ":probe", "1");
        store.removeItem(KEY + ":probe");
        out.push(store);
      } catch (e) { /* blocked in this context */ }
    });
    return out;
  }

  var field = document.getElementById("identity-field");
  if (field) {
    stores().some(function (store) {
      var saved = store.getItem(KEY);
      if (saved) { field.value = saved; }
      return !!saved;
    });
    return;
  }

  var form = document.getElementById("task-form");
  if (!form || form.dataset.preview) { return; }
  if (form.dataset.identity) {
    stores().forEach(function (store) {
      try { store.setItem(KEY, form.dataset.identity); } catch (e) { /* full or blocked */ }
    });
  }

  var url = form.dataset.activityUrl;
  if (!url) { return; }
  var every = 1000 * parseInt(form.dataset.activityEvery || "60", 10);
  var active = false, finished = false, last = 0;

  function body(left) {
    var data = new URLSearchParams({t: form.dataset.token});
    if (left) { data.set("left", "1"); }
    return data;
  }

  function send(left) {
    var data = body(left);
    if (left && navigator.sendBeacon && navigator.sendBeacon(url, data)) { return; }
    fetch(url, {method: "POST", body: data, credentials: "omit", keepalive: true}).catch(function () {
      /* offline for a moment: the next report or the answer itself will do */
    });
  }

  function beat() {
    last = Date.now();
    active = false;
    send(false);
  }

  function activity() {
    if (finished) { return; }
    active = true;
    if (Date.now() - last >= every) { beat(); }
  }

  ["keydown", "pointerdown", "input", "wheel", "touchstart"].forEach(function (type) {
    document.addEventListener(type, activity, {capture: true, passive: true});
  });
  window.setInterval(function () { if (active && !finished) { beat(); } }, every);
  form.addEventListener("task:stored", function () { finished = true; });
  window.addEventListener("pagehide", function () { if (!finished) { send(true); } });
  window.addEventListener("pageshow", function (event) { if (event.persisted && !finished) { beat(); } });
  beat();  // the page is open: the task is the worker's (taken up again if it was left and its slot is free)
})();
