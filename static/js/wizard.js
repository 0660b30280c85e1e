// Campaign wizard: shows the sections that apply to the chosen flow, kind and provider (the others are
// disabled so they are not sent), keeps the worker-page preview up to date, loads more choices (publishing
// is confirmed in the page by static/js/confirm.js). Without it the form still works: every section is shown and sent.
(function () {
  "use strict";
  var form = document.getElementById("wizard");
  if (!form) return;
  var frame = document.getElementById("wz-preview-frame");

  function checked(name) {
    var input = form.querySelector('input[name="' + name + '"]:checked');
    return input ? input.value : "";
  }
  function flowInput() { return form.querySelector('input[name="flow"]:checked'); }
  function kind() {
    var flow = flowInput();
    return flow && flow.value !== "campaign" ? flow.getAttribute("data-first-kind") : checked("kind");
  }
  function show(element, visible) {
    element.hidden = !visible;
    if (element.tagName === "FIELDSET") element.disabled = !visible;
    else element.querySelectorAll("input, select, textarea").forEach(function (i) { i.disabled = !visible; });
  }

  function update() {
    var flow = flowInput() ? flowInput().value : "campaign";
    var current = kind();
    form.querySelectorAll("[data-flow-only]").forEach(function (el) {
      show(el, el.getAttribute("data-flow-only") === flow);
    });
    form.querySelectorAll("[data-kinds]").forEach(function (el) {
      var fits = el.getAttribute("data-kinds").split(" ").indexOf(current) >= 0;
      if (flow !== "campaign" && el.getAttribute("data-source") === "stage") fits = false;
      show(el, fits);
      var radio = el.querySelector('input[name="source"]');
      if (!fits && radio.checked) radio.checked = false;
    });
    if (!checked("source")) {
      var first = form.querySelector('[data-kinds]:not([hidden]) input[name="source"]');
      if (first) first.checked = true;
    }
    var source = checked("source");
    form.querySelectorAll("[data-choices-of]").forEach(function (el) {
      show(el, el.getAttribute("data-choices-of") === source);
    });
    form.querySelectorAll("[data-stage-select]").forEach(function (el) { show(el, source === "stage"); });
    form.querySelectorAll("[data-kind]").forEach(function (el) {
      show(el, flow === "campaign" && el.getAttribute("data-kind") === current);
    });
    var provider = checked("provider");
    form.querySelectorAll("[data-provider]").forEach(function (el) {
      show(el, el.getAttribute("data-provider") === provider);
    });
    var tasks = document.getElementById("f-tasks_per_submission");
    if (tasks) show(tasks.closest(".wz-field"), provider === "prolific" && flow === "campaign");
    var kindInput = form.querySelector('input[name="kind"][value="' + current + '"]');
    if (kindInput && flow === "campaign") {
      [["reward", "data-reward"], ["assignments_per_hit", "data-assignments"],
       ["time_limit_seconds", "data-time"], ["title", "data-title"], ["instructions", "data-instructions"]]
        .forEach(function (pair) {
          var input = document.getElementById("f-" + pair[0]);
          if (input) input.placeholder = kindInput.getAttribute(pair[1]);
        });
    }
    renumber();
    schedulePreview();
  }

  // The steps a person sees count 1, 2, 3… whichever sections the chosen flow hides (a workflow has no
  // "Task kind" step); without this script every step is shown, numbered as written.
  function renumber() {
    var n = 0;
    form.querySelectorAll(":scope > fieldset.card > legend").forEach(function (legend) {
      var text = legend.firstChild;
      if (legend.parentElement.hidden || !text || text.nodeType !== Node.TEXT_NODE) return;
      if (/^\d+\. /.test(text.nodeValue)) text.nodeValue = text.nodeValue.replace(/^\d+\./, ++n + ".");
    });
  }

  var timer = null;
  var leaving = false;  // once the form is sent, the preview stays as it is (a frame load could hold up the page's)
  function schedulePreview() {
    window.clearTimeout(timer);
    if (!leaving) timer = window.setTimeout(refreshPreview, 350);
  }
  function refreshPreview() {
    if (!frame) return;
    var current = kind();
    var flow = flowInput() ? flowInput().value : "campaign";
    var params = new URLSearchParams();
    params.set("kind", current);
    if (flow === "campaign") {
      ["title", "instructions", "reward", "time_limit_seconds"].forEach(function (name) {
        var input = document.getElementById("f-" + name);
        if (input && input.value.trim()) params.set(name, input.value.trim());
      });
      form.querySelectorAll('[data-kind="' + current + '"] input, [data-kind="' + current + '"] select').forEach(function (input) {
        if (input.type === "checkbox") { if (input.checked) params.set(input.name, "on"); }
        else if (input.value.trim()) params.set(input.name, input.value.trim());
      });
    }
    else {  // a workflow: its first stage's options chosen from a list (e.g. the boxes stage's vocabulary)
      form.querySelectorAll('[data-flow-only="' + flow + '"] select[data-preview-param]').forEach(function (select) {
        if (select.value) params.set(select.getAttribute("data-preview-param"), select.value);
      });
    }
    var source = checked("source");
    var ticked = form.querySelector('input[name="item-' + source + '"]:checked');
    if (ticked) { params.set("source", source); params.set("item", ticked.value); }
    var url = frame.getAttribute("data-base") + "?" + params.toString();
    if (frame.getAttribute("src") !== url) frame.setAttribute("src", url);
  }

  form.addEventListener("submit", function () { leaving = true; window.clearTimeout(timer); });
  function showChoice(select) {  // the labels (or other values) the chosen option gives workers
    var holder = document.getElementById(select.getAttribute("data-choice-preview"));
    var option = select.options[select.selectedIndex];
    if (holder && option) holder.querySelector("[data-preview-text]").textContent = option.getAttribute("data-preview") || "–";
  }
  form.addEventListener("change", function (event) {
    if (event.target.matches && event.target.matches("select[data-choice-preview]")) showChoice(event.target);
    update();
  });
  form.addEventListener("input", function (event) {
    var name = event.target.name || "";
    if (name === "title" || name === "instructions" || name.indexOf("opt-") === 0) schedulePreview();
  });
  // A selector's "Apply filters": the matching images (count, HITs, select all, first page) without leaving the page.
  form.addEventListener("click", function (event) {
    var apply = event.target.closest ? event.target.closest("[data-filter-apply]") : null;
    if (!apply) return;
    event.preventDefault();
    var box = apply.closest("[data-choices-of]");
    var target = box.querySelector("[data-matching]");
    var params = new URLSearchParams();
    box.querySelectorAll('[name^="filter-"]').forEach(function (input) {
      if (input.type === "checkbox") { if (input.checked) params.append(input.name, "on"); }
      else if (input.tagName === "SELECT" && input.multiple) {
        Array.prototype.forEach.call(input.selectedOptions, function (o) { params.append(input.name, o.value); });
      } else if (input.value.trim()) params.append(input.name, input.value.trim());
    });
    apply.disabled = true;
    target.setAttribute("aria-busy", "true");
    fetch(apply.getAttribute("data-filter-apply") + "?" + params.toString(), { credentials: "same-origin" })
      .then(function (response) { if (!response.ok) throw new Error(response.status); return response.text(); })
      .then(function (html) { target.innerHTML = html; schedulePreview(); })
      .catch(function () { target.insertAdjacentHTML("afterbegin", '<p class="wz-error">Could not apply the filters: try again.</p>'); })
      .then(function () { apply.disabled = false; target.removeAttribute("aria-busy"); });
  });
  form.addEventListener("click", function (event) {
    var more = event.target.closest ? event.target.closest("[data-more]") : null;
    if (!more) return;
    more.disabled = true;
    more.textContent = "Loading…";
    fetch(more.getAttribute("data-more"), { credentials: "same-origin" })
      .then(function (response) { if (!response.ok) throw new Error(response.status); return response.text(); })
      .then(function (html) {
        var holder = document.createElement("div");
        holder.innerHTML = html;
        var parent = more.parentNode;
        while (holder.firstChild) parent.insertBefore(holder.firstChild, more);
        more.remove();
      })
      .catch(function () { more.disabled = false; more.textContent = "Could not load more: try again"; });
  });
  update();
})();
