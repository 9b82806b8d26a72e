// Live updates on the home page: asks the server every few seconds how many
// twits arrived above the newest one on the page (GET /stream/new?since=id)
// and, when there are some, shows "N new twits" as a link that reloads the
// top of the stream. Without JavaScript the page simply has no banner.
// The messages pages use it too, with their own URL and words
// (data-one, data-many: "new message", "new messages").
//
// Polls every data-poll-ms milliseconds; backs off while the tab is hidden
// (and checks at once when it shows again) and after a failed request
// (doubling, up to five minutes), so idle and broken tabs cost little.
(function () {
  "use strict";
  var slot = document.querySelector("[data-live-url]");
  if (!slot || !window.fetch) {
    return;
  }
  var link = slot.querySelector(".live-new-link");
  var url = slot.getAttribute("data-live-url");
  var since = slot.getAttribute("data-since") || "";
  var one = slot.getAttribute("data-one") || "new twit";
  var many = slot.getAttribute("data-many") || "new twits";
  var base = Math.max(Number(slot.getAttribute("data-poll-ms")) || 20000, 100);
  var HIDDEN_FACTOR = 6;
  var MAX_DELAY = 5 * 60 * 1000;
  var delay = base;
  var timer = null;
  var inFlight = false;

  function schedule(ms) {
    clearTimeout(timer);
    timer = setTimeout(poll, ms);
  }

  function show(count, more) {
    if (!count) {
      link.hidden = true;
      return;
    }
    var n = more ? count + "+" : String(count);
    link.textContent = "Show " + n + " " + (count === 1 && !more ? one : many);
    link.hidden = false;
    slot.classList.add("live-new-shown");
  }

  function poll() {
    if (inFlight) {
      return;
    }
    inFlight = true;
    fetch(url + "?since=" + encodeURIComponent(since), {
      credentials: "same-origin",
      cache: "no-store",
      headers: { Accept: "application/json" },
    })
      .then(function (response) {
        if (!response.ok) {
          throw new Error("HTTP " + response.status);
        }
        return response.json();
      })
      .then(function (data) {
        inFlight = false;
        show(data.count, data.more);
        delay = base;
        schedule(document.hidden ? base * HIDDEN_FACTOR : base);
      })
      .catch(function () {
        inFlight = false;
        delay = Math.min(delay * 2, MAX_DELAY);
        schedule(delay);
      });
  }

  document.addEventListener("visibilitychange", function () {
    if (!document.hidden && !inFlight && delay === base) {
      // Back in view: check now rather than at the end of a hidden-tab delay.
      schedule(0);
    }
  });
  link.addEventListener("click", function (event) {
    // The link is a plain link home; a reload also drops a stale form state.
    if (!event.ctrlKey && !event.metaKey && !event.shiftKey) {
      event.preventDefault();
      window.location.assign(link.href);
    }
  });
  schedule(base);
})();
