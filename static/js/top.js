// Live updates of the Top timeline (templates/timeline/top.html). Progressive
// enhancement: without this file, or without JavaScript, Top works as before.
//
// Top does not reorder under the reader's eyes: it listens to the same home feed as the
// Latest page (the stream server's /live/home, authenticated by the session cookie),
// starting after the newest status Top shows, and when statuses arrive it shows a bar,
// "3 new statuses on Latest", a link to Latest. The unread notification count comes on
// the same connection and updates the navigation's badge, as on Latest.
(function () {
  "use strict";
  var timeline = document.getElementById("top-timeline");
  if (!timeline || !window.EventSource || !timeline.hasAttribute("data-stream-port")) return;

  var fresh = {}; // ids of the new statuses heard of
  var count = 0;
  var bar = document.createElement("a");
  bar.className = "live-bar top-live-bar";
  bar.href = timeline.getAttribute("data-latest-url") || "/";
  bar.hidden = true;
  bar.setAttribute("aria-live", "polite");
  timeline.parentNode.insertBefore(bar, timeline);

  var lastEventId = (timeline.getAttribute("data-newest") || "0") + ".";
  (function () {
    var badge = document.querySelector(".unread-count[data-version]");
    if (badge) lastEventId += badge.getAttribute("data-version");
  })();

  function streamUrl() {
    var base = timeline.getAttribute("data-stream-url");
    if (!base) {
      base = location.protocol + "//" + location.hostname + ":" +
        timeline.getAttribute("data-stream-port");
    }
    var url = new URL(base.replace(/\/+$/, "") + "/live/home", location.href);
    if (lastEventId) url.searchParams.set("last_event_id", lastEventId);
    return url.href;
  }

  function remember(event) {
    if (event.lastEventId) lastEventId = event.lastEventId;
  }

  function onStatus(event) {
    remember(event);
    var status = JSON.parse(event.data);
    var id = String(status.shows || status.id);
    if (fresh[id] || document.getElementById("status-" + id)) return;
    fresh[id] = true;
    count += 1;
    bar.textContent = count + " new status" + (count === 1 ? "" : "es") + " on Latest";
    bar.hidden = false;
  }

  function onLoadNewer(event) {
    remember(event);
    bar.textContent = "New statuses on Latest";
    bar.hidden = false;
  }

  function onUnread(event) {
    remember(event);
    var data = JSON.parse(event.data);
    document.querySelectorAll(".unread-count").forEach(function (badge) {
      if (data.version <= Number(badge.getAttribute("data-version") || 0)) return;
      badge.setAttribute("data-version", String(data.version));
      badge.textContent = data.count > 99 ? "99+" : String(data.count);
      badge.hidden = data.count === 0;
    });
  }

  var FIRST_PAUSE = 5000, MAX_PAUSE = 300000;
  var pause = FIRST_PAUSE;

  function connect() {
    var source = new EventSource(streamUrl(), { withCredentials: true });
    source.addEventListener("status", onStatus);
    source.addEventListener("unread", onUnread);
    source.addEventListener("load-newer", onLoadNewer);
    source.addEventListener("open", function () {
      pause = FIRST_PAUSE;
      timeline.setAttribute("data-live", "connected");
    });
    source.addEventListener("error", function () {
      if (source.readyState !== EventSource.CLOSED) {
        timeline.setAttribute("data-live", "reconnecting");
        return;
      }
      timeline.setAttribute("data-live", "closed");
      source.close();
      setTimeout(connect, pause);
      pause = Math.min(pause * 2, MAX_PAUSE);
    });
  }
  connect();
})();
