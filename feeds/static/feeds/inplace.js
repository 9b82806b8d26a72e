// Like, repost, follow and mute without leaving the page; and the reply box.
//
// The forms (templates/_like_form.html, _repost_form.html,
// _follow_button.html, a profile's mute in _stance_button.html, marked
// data-in-place) work without JavaScript: they
// POST and the server redirects back to the twit or person acted on. Here the
// same form, CSRF token and all, is posted with fetch and the header
// X-Requested-With: fetch, for which the view answers with the form as it is
// now (liked, the new count, the other action); it takes the old one's place,
// so the page neither reloads nor scrolls. Anything else (an error page, a
// redirect to log in, no network) submits the form the ordinary way, so the
// person sees what the server says.
//
// The reply box on a thread (data-in-place-reply) posts the same way; the
// view answers with the reply alone (templates/_my_reply.html), shown first
// under the replies' heading, and the box empties for another. A refused
// reply (too long, too many) submits the ordinary way, for the reason beside
// the box; once the reply is posted, nothing here posts it again.
(function () {
  "use strict";

  function fallBack(form) {
    delete form.dataset.busy;
    HTMLFormElement.prototype.submit.call(form);
  }

  function post(form) {
    return fetch(form.action, {
      method: "POST",
      body: new FormData(form),
      headers: { "X-Requested-With": "fetch" },
      credentials: "same-origin",
    }).then(function (response) {
      if (!response.ok || response.redirected) {
        throw new Error("not in place: " + response.status);
      }
      return response.text();
    });
  }

  function fragment(html) {
    var template = document.createElement("template");
    template.innerHTML = html.trim();
    return template.content.firstElementChild;
  }

  function showReply(form, html) {
    var reply = fragment(html);
    var replies = document.getElementById("replies");
    var title = replies && replies.querySelector(".replies-title");
    if (!reply || !reply.querySelector("article.twit") || !title) {
      window.location.reload(); // posted: the page as the server has it now
      return;
    }
    title.after(reply);
    var empty = replies.querySelector(".empty");
    if (empty) {
      empty.remove();
    }
    var n = (parseInt(title.textContent, 10) || 0) + 1;
    var counted = n === 1 ? "1 reply" : n + " replies";
    title.textContent = counted;
    // The twit replied to counts it too, on its Reply action (_twit_foot.html).
    var action = document.querySelector(".permalink .twit-reply");
    if (action) {
      action.replaceChildren(action.firstElementChild, " Reply · " + n);
      var words = document.createElement("span");
      words.className = "visually-hidden";
      words.textContent = " " + counted.replace(/^\d+ /, "");
      action.append(words);
    }
    var box = form.querySelector("textarea");
    box.value = "";
    box.dispatchEvent(new Event("input", { bubbles: true }));
    var said = form.querySelector(".composer-count-said");
    if (said) {
      said.textContent = "Your reply is posted.";
    }
    delete form.dataset.busy;
  }

  document.addEventListener("submit", function (event) {
    var form = event.target;
    if (form instanceof HTMLFormElement && form.hasAttribute("data-in-place-reply")) {
      event.preventDefault();
      if (form.dataset.busy) {
        return;
      }
      form.dataset.busy = "1";
      post(form).then(
        function (html) {
          showReply(form, html);
        },
        function () {
          fallBack(form);
        }
      );
      return;
    }
    if (!(form instanceof HTMLFormElement) || !form.hasAttribute("data-in-place")) {
      return;
    }
    event.preventDefault();
    if (form.dataset.busy) {
      return; // a double click: the first post is under way
    }
    form.dataset.busy = "1";
    var focused = form.contains(document.activeElement);
    post(form)
      .then(function (html) {
        var replacement = fragment(html);
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
