/* The review page: selection and its checks before the confirmation (static/js/confirm.js), overlay toggles and keyboard shortcuts
   (j/k next/previous, x select, a approve, r reject, ? help). Shortcuts never act while typing in a field. */
(function () {
  "use strict";
  var bulk = document.getElementById("bulk");
  if (!bulk) { return; }
  var cards = Array.prototype.slice.call(document.querySelectorAll(".review-card"));
  var selectPage = document.getElementById("select-page");
  var countText = document.getElementById("selected-count");
  var problem = document.getElementById("bulk-problem");
  var feedback = document.getElementById("bulk-feedback");
  var help = document.getElementById("shortcuts");
  var current = -1;
  var filtersBox = document.getElementById("review-filters");
  if (filtersBox && window.matchMedia("(max-width: 600px)").matches) { filtersBox.open = false; }  // answers first

  function boxes() { return Array.prototype.slice.call(document.querySelectorAll("input[name=assignment][form=bulk]")); }
  function selected() { return boxes().filter(function (box) { return box.checked; }); }

  function refresh() {
    var all = boxes(), chosen = selected().length;
    countText.textContent = chosen + " selected";
    selectPage.checked = all.length > 0 && chosen === all.length;
    selectPage.indeterminate = chosen > 0 && chosen < all.length;
    selectPage.disabled = all.length === 0;
  }

  function say(text) {
    problem.textContent = text;
    problem.hidden = !text;
  }

  selectPage.addEventListener("change", function () {
    boxes().forEach(function (box) { box.checked = selectPage.checked; });
    refresh();
  });
  document.addEventListener("change", function (event) {
    if (event.target.name === "assignment") { refresh(); }
  });

  function checkboxOf(card) { return card ? card.querySelector("input[name=assignment]") : null; }

  function selectCurrentIfNone() {
    if (selected().length === 0) {
      var box = checkboxOf(cards[current]);
      if (box) { box.checked = true; refresh(); }
    }
  }

  bulk.addEventListener("submit", function (event) {
    var action = event.submitter ? event.submitter.value : "";
    var count = selected().length;
    if (count === 0) {
      event.preventDefault();
      say("Select at least one assignment first (its checkbox, or x on the current one).");
      return;
    }
    if (action === "reject") {
      var least = parseInt(feedback.dataset.min || "1", 10);
      if (feedback.value.trim().length < least) {
        event.preventDefault();
        say(least > 1 ? "Rejecting needs feedback of at least " + least + " characters that tells the workers why."
                      : "Rejecting needs feedback that tells the workers why.");
        feedback.focus();
        return;
      }
    }
    say("");  // static/js/confirm.js then shows the confirmation step: how many, flagged by which check
  });

  document.querySelectorAll(".overlay-toggle").forEach(function (button) {
    var ids = button.getAttribute("aria-controls").split(" ");
    var sets = document.getElementById(ids[0]), overlay = document.getElementById(ids[1]);
    var sideLabel = "Show the box sets side by side", overlayLabel = button.textContent;
    button.addEventListener("click", function () {
      var overlaid = button.getAttribute("aria-pressed") !== "true";
      button.setAttribute("aria-pressed", overlaid ? "true" : "false");
      sets.hidden = overlaid;
      overlay.hidden = !overlaid;
      button.textContent = overlaid ? sideLabel : overlayLabel;
    });
  });

  function go(index) {
    if (cards.length === 0) { return; }
    current = Math.max(0, Math.min(cards.length - 1, index));
    cards.forEach(function (card, i) { card.classList.toggle("current", i === current); });
    cards[current].focus();
    cards[current].scrollIntoView({block: "nearest"});
  }

  cards.forEach(function (card, i) {
    card.addEventListener("focusin", function () {
      current = i;
      cards.forEach(function (other, j) { other.classList.toggle("current", j === i); });
    });
  });

  function typing(target) {
    var tag = target && target.tagName;
    return tag === "INPUT" && !/^(checkbox|radio|button|submit)$/.test(target.type) ||
      tag === "TEXTAREA" || tag === "SELECT" || (target && target.isContentEditable);
  }

  document.addEventListener("keydown", function (event) {
    if (event.key === "Escape" && typing(event.target)) {
      event.target.blur();
      if (current >= 0) { cards[current].focus(); }
      return;
    }
    if (event.ctrlKey || event.metaKey || event.altKey || typing(event.target)) { return; }
    var key = event.key;
    if (key === "j") { go(current + 1); }
    else if (key === "k") { go(current - 1); }
    else if (key === "x") {
      var box = checkboxOf(cards[current]);
      if (box) { box.checked = !box.checked; refresh(); }
    } else if (key === "a") {
      selectCurrentIfNone();
      bulk.requestSubmit(document.getElementById("approve-selected"));
    } else if (key === "r") {
      selectCurrentIfNone();
      feedback.focus();
    } else if (key === "?") {
      help.open = !help.open;
      if (help.open) { help.querySelector("summary").focus(); }
    } else { return; }
    event.preventDefault();
  });

  refresh();
}());
