// The composer: a live character count and Ctrl/Cmd+Enter to post; a Reply
// link's #reply (or /#compose) puts the cursor in the box.
//
// Counts as the server does (feeds/services/twits.py, clean_text): CRLF as
// one newline, leading and trailing white space trimmed, then characters
// (code points, so an emoji is one, as Python's len counts it). The textarea's
// maxlength (which browsers count in UTF-16 units, an emoji as two) is
// dropped: the count warns near and past the limit, the server enforces it.
// The visible count is hidden from screen readers; a polite live region
// speaks only near and past the limit: how many are left, or how far over.
(function () {
  "use strict";
  var NEAR = 20;

  function length(text) {
    return Array.from(text.replace(/\r\n/g, "\n").trim()).length;
  }

  function wire(form) {
    var box = form.querySelector("textarea");
    var count = form.querySelector(".composer-count");
    var said = form.querySelector(".composer-count-said");
    if (!box || !count) {
      return;
    }
    var max = Number(count.getAttribute("data-max")) || 280;
    box.removeAttribute("maxlength");
    count.hidden = false;

    function update() {
      var n = length(box.value);
      var left = max - n;
      var state = left < 0 ? "over" : left <= NEAR ? "near" : "ok";
      count.textContent = n + " / " + max;
      count.classList.toggle("composer-count-near", state === "near");
      count.classList.toggle("composer-count-over", state === "over");
      if (state === "over") {
        box.setAttribute("aria-invalid", "true");
      } else if (!form.querySelector(".field-error")) {
        box.removeAttribute("aria-invalid");
      }
      if (said) {
        said.textContent =
          state === "over"
            ? -left + (left === -1 ? " character" : " characters") + " over the limit of " + max
            : state === "near"
              ? left + (left === 1 ? " character" : " characters") + " left"
              : "";
      }
    }

    box.addEventListener("input", update);
    box.addEventListener("keydown", function (event) {
      if (event.key === "Enter" && (event.ctrlKey || event.metaKey)) {
        event.preventDefault();
        if (form.requestSubmit) {
          form.requestSubmit();
        } else {
          form.submit();
        }
      }
    });
    update();
  }

  // The home and reply composers, and a conversation's send box.
  document.querySelectorAll(".composer form, form.chat-send").forEach(wire);

  // A Reply link (…#reply), or "n" from another page (/#compose), lands here
  // ready to type, from another page or this one.
  function focusReply() {
    var hash = window.location.hash;
    var box = (hash === "#reply" || hash === "#compose") && document.querySelector(hash + " textarea");
    if (box) {
      box.focus();
    }
  }
  window.addEventListener("hashchange", focusReply);
  // After the load, once the browser has scrolled to the fragment (which
  // leaves the focus on the body).
  window.addEventListener("load", focusReply);
})();
