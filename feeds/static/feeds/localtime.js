// Times in the reader's own time zone. Each <time data-local> is rendered
// in UTC and says so ("14:05 · 3 March 2026 UTC"); this rewrites its text
// in the browser's time zone, in the same order, with the zone's short
// name. Its title (UTC) stays, for hover. Without JavaScript the UTC shows.
(function () {
  "use strict";
  var format = new Intl.DateTimeFormat("en-GB", {
    hour: "2-digit",
    minute: "2-digit",
    hourCycle: "h23",
    day: "numeric",
    month: "long",
    year: "numeric",
    timeZoneName: "short",
  });
  function local(when) {
    var part = {};
    format.formatToParts(when).forEach(function (p) {
      part[p.type] = p.value;
    });
    return (
      part.hour + ":" + part.minute + " · " + part.day + " " + part.month + " " + part.year +
      " " + part.timeZoneName
    );
  }
  document.querySelectorAll("time[data-local]").forEach(function (el) {
    var when = new Date(el.getAttribute("datetime"));
    if (!isNaN(when.getTime())) {
      el.textContent = local(when);
    }
  });
})();
