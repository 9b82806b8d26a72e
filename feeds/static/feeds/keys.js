// Keyboard shortcuts, as on other feeds: j and k move to the next and the
// previous twit, l likes (or unlikes) it, r replies to it, n writes a new
// twit, and ? shows them all (the help dialog in templates/base.html).
//
// Each one does what a click on the twit's own control does (its Like form,
// its Reply link), so nothing here works differently from the page without
// JavaScript. Keys typed into a field, or with Ctrl, Alt or Cmd, are left to
// the browser.
(function () {
  "use strict";
  var current = null;

  function typing(target) {
    return (
      target instanceof HTMLElement &&
      (target.isContentEditable || /^(INPUT|TEXTAREA|SELECT)$/.test(target.tagName))
    );
  }

  function twits() {
    return Array.prototype.slice.call(document.querySelectorAll("main article.twit"));
  }

  function select(twit) {
    if (current) {
      current.classList.remove("twit-selected");
    }
    current = twit;
    twit.classList.add("twit-selected");
    twit.setAttribute("tabindex", "-1");
    twit.focus({ preventScroll: true });
    twit.scrollIntoView({ block: "nearest" });
  }

  function move(step) {
    var all = twits();
    if (!all.length) {
      return;
    }
    // From the focused twit if the focus is in one (after a Tab or a click).
    var from = document.activeElement && document.activeElement.closest("article.twit");
    var at = all.indexOf(from || current);
    var next = at === -1 ? (step > 0 ? 0 : all.length - 1) : at + step;
    select(all[Math.max(0, Math.min(all.length - 1, next))]);
  }

  function selected() {
    var from = document.activeElement && document.activeElement.closest("article.twit");
    return from || current;
  }

  function press(selector) {
    var twit = selected();
    var control = twit && twit.querySelector(selector);
    if (control) {
      control.click();
    }
  }

  function compose() {
    var box = document.querySelector("#compose textarea");
    if (box) {
      box.focus();
      box.scrollIntoView({ block: "center" });
    } else {
      window.location.href = document.body.getAttribute("data-compose-url") || "/#compose";
    }
  }

  function help() {
    var dialog = document.getElementById("shortcuts");
    if (dialog && typeof dialog.showModal === "function") {
      if (dialog.open) {
        dialog.close();
      } else {
        dialog.showModal();
      }
    }
  }

  var actions = {
    j: function () { move(1); },
    k: function () { move(-1); },
    l: function () { press(".twit-like"); },
    r: function () { press(".twit-reply"); },
    n: compose,
    "?": help,
  };

  document.addEventListener("keydown", function (event) {
    if (event.ctrlKey || event.metaKey || event.altKey || event.defaultPrevented) {
      return;
    }
    var dialog = document.getElementById("shortcuts");
    if (typing(event.target) || (dialog && dialog.open && event.key !== "?")) {
      return;
    }
    var action = actions[event.key];
    if (action) {
      event.preventDefault();
      action();
    }
  });
})();
