// Live updates of the home timeline. Progressive enhancement: without this file, or
// without JavaScript, the page works as before and shows new statuses on reload.
//
// The streaming server (manage.py stream) sends the logged-in user's new statuses,
// and the deletions of statuses they may be showing, as Server-Sent Events from
// /live/home, authenticated by the site's session cookie. New statuses wait behind a
// bar ("2 new statuses") so that the page does not move under the reader; a click
// shows them. Deleted statuses disappear at once.
//
// The same connection brings the user's unread notification count (event: unread)
// whenever it changes: the navigation's badge shows it, keeping the highest version seen,
// so that a count older than the page's (or than one already shown) never replaces it.
//
// Each status comes as its markup, made and escaped on the server by the same macro
// as the page's own statuses (templates/_status.html), and is inserted as it is. The
// author's own statuses carry a delete form, and every status a Repost form, whose
// CSRF token is blank: this page's goes in. A repost comes as its original, with
// "shows" naming it: a page that shows the original already skips it.
(function () {
  "use strict";
  var timeline = document.getElementById("timeline");
  if (!timeline || !window.EventSource || !timeline.hasAttribute("data-stream-port")) return;

  // A tab left open for days must not hoard statuses: past this many, the oldest
  // waiting ones are forgotten (a reload shows them all anyway).
  var MAX_PENDING = 200;
  var pending = []; // received, not shown yet
  var bar = document.createElement("button");
  bar.type = "button";
  bar.className = "live-bar";
  bar.hidden = true;
  bar.setAttribute("aria-live", "polite");
  timeline.parentNode.insertBefore(bar, timeline);

  function streamUrl() {
    // STREAM_PUBLIC_URL when set (production: a path such as /stream routed by the
    // reverse proxy); otherwise this page's host name on the stream server's port.
    var base = timeline.getAttribute("data-stream-url");
    if (!base) {
      base = location.protocol + "//" + location.hostname + ":" +
        timeline.getAttribute("data-stream-port");
    }
    return new URL(base.replace(/\/+$/, "") + "/live/home", location.href).href;
  }

  function renderStatus(status) {
    // A <template> parses the markup without running or loading anything in it.
    var template = document.createElement("template");
    template.innerHTML = status.html;
    var article = template.content.firstElementChild;
    var blanks = article ? article.querySelectorAll('form input[name="csrfmiddlewaretoken"]') : [];
    // The page's forms all carry its CSRF token; any of them will do for these (the
    // delete form of one's own status, the Repost and Like forms).
    var token = document.querySelector('input[name="csrfmiddlewaretoken"]');
    for (var i = 0; i < blanks.length; i++) {
      if (token) {
        blanks[i].value = token.value;
      } else {
        blanks[i].form.remove();
      }
    }
    return article;
  }

  function updateBar() {
    var count = pending.length;
    bar.textContent = count === 1 ? "1 new status" : count + " new statuses";
    bar.hidden = count === 0;
  }

  function showPending() {
    var empty = timeline.querySelector(".empty");
    if (empty) empty.remove();
    // Oldest first, each on top: the newest ends up first, as on the timeline.
    pending.sort(function (a, b) { return a.id - b.id; });
    pending.forEach(function (status) {
      if (document.getElementById("status-" + (status.shows || status.id))) return;
      var article = renderStatus(status);
      if (article) timeline.insertBefore(article, timeline.firstChild);
    });
    pending = [];
    updateBar();
  }

  function onStatus(event) {
    var status = JSON.parse(event.data);
    // A repost shows its original ("shows"): a page that shows it already skips it.
    var shows = status.shows || status.id;
    var known = document.getElementById("status-" + shows) ||
      pending.some(function (other) { return (other.shows || other.id) === shows; });
    if (known) return;
    pending.push(status);
    if (pending.length > MAX_PENDING) pending.shift();
    updateBar();
  }

  function onDelete(event) {
    var id = JSON.parse(event.data).id;
    var shown = document.getElementById("status-" + id);
    if (shown) shown.remove();
    pending = pending.filter(function (status) { return status.id !== id; });
    updateBar();
  }

  function onUnread(event) {
    var data = JSON.parse(event.data);
    document.querySelectorAll(".unread-count").forEach(function (badge) {
      if (data.version <= Number(badge.getAttribute("data-version") || 0)) return;
      badge.setAttribute("data-version", String(data.version));
      badge.textContent = data.count > 99 ? "99+" : String(data.count);
      badge.hidden = data.count === 0;
    });
  }

  bar.addEventListener("click", showPending);
  // withCredentials: in development the stream is on another port, so another
  // origin; the session cookie must go along for the server to know who this is.
  var source = new EventSource(streamUrl(), { withCredentials: true });
  source.addEventListener("status", onStatus);
  source.addEventListener("delete", onDelete);
  source.addEventListener("unread", onUnread);
  source.addEventListener("open", function () {
    timeline.setAttribute("data-live", "connected");
  });
  source.addEventListener("error", function () {
    // The browser reconnects by itself after a network error; it gives up (CLOSED)
    // on an error answer, such as 401 once the session has ended.
    var closed = source.readyState === EventSource.CLOSED;
    timeline.setAttribute("data-live", closed ? "closed" : "reconnecting");
  });
})();
