// Like, repost and follow without leaving the page.
//
// The forms (templates/_like_form.html, _repost_form.html,
// _follow_button.html, marked data-in-place) work without JavaScript: they
// POST and the server redirects back to the twit or person acted on. Here the
// same form, CSRF token and all, is posted with fetch and the header
// X-Requested-With: fetch, for which the view answers with the form as it is
// now (liked, the new count, the other action); it takes the old one's place,
// so the page neither reloads nor scrolls. Anything else (an error page, a
// redirect to log in, no network) submits the form the ordinary way, so the
// person sees what the server says.
(function () {
  "use strict";

  function fallBack(form) {
    delete form.dataset.busy;
    HTMLFormElement.prototype.submit.call(form);
  }

  document.addEventListener("submit", function (event) {
    var form = event.target;
    if (!(form instanceof HTMLFormElement) || !form.hasAttribute("data-in-place")) {
      return;
    }
    event.preventDefault();
    if (form.dataset.busy) {
      return; // a double click: the first post is under way
    }
    form.dataset.busy = "1";
    var focused = form.contains(document.activeElement);
    fetch(form.action, {
      method: "POST",
      body: new FormData(form),
      headers: { "X-Requested-With": "fetch" },
      credentials: "same-origin",
    })
      .then(function (response) {
        if (!response.ok || response.redirected) {
          throw new Error("not in place: " + response.status);
        }
        return response.text();
      })
      .then(function (html) {
        var template = document.createElement("template");
        template.innerHTML = html.trim();
        var replacement = template.content.firstElementChild;
        if (!(replacement instanceof HTMLFormElement)) {
          throw new Error("no form in the answer");
        }
        form.replaceWith(replacement);
        if (focused) {
          var button = replacement.querySelector("button");
          if (button) {
            button.focus({ preventScroll: true });
          }
        }
      })
      .catch(function () {
        fallBack(form);
      });
  });
})();
