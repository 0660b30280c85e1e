/* "Copy worker link" buttons: <button data-copy="<id of the element holding the link>">. The result is said in
   the live region "<id>-status": "Copied", or how to copy by hand when the browser refuses the clipboard
   (navigator.clipboard needs HTTPS or localhost). Loaded once however many partials include it. */
(function () {
  "use strict";
  if (window.CopyLink) { return; }
  window.CopyLink = true;

  function say(id, text) {
    var status = document.getElementById(id + "-status");
    if (status) { status.textContent = text; }
  }

  function selectText(el) {
    var range = document.createRange();
    range.selectNodeContents(el);
    var selection = window.getSelection();
    selection.removeAllRanges();
    selection.addRange(range);
  }

  function byHand(id, el) {  // the older way, then the person's own Ctrl+C
    selectText(el);
    var copied = false;
    try { copied = document.execCommand("copy"); } catch (e) { copied = false; }
    say(id, copied ? "Copied" : "Could not copy: the link is selected, press Ctrl+C (⌘+C) to copy it.");
  }

  document.addEventListener("click", function (ev) {
    var button = ev.target.closest ? ev.target.closest("button[data-copy]") : null;
    if (!button) { return; }
    var id = button.dataset.copy, el = document.getElementById(id);
    if (!el) { return; }
    var text = el.textContent.trim();
    say(id, "");
    if (navigator.clipboard && window.isSecureContext) {
      navigator.clipboard.writeText(text).then(function () { say(id, "Copied"); }, function () { byHand(id, el); });
    } else {
      byHand(id, el);
    }
  });
})();
