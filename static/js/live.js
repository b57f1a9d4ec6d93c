// Live updates of the home timeline. Progressive enhancement: without this file, or
// without JavaScript, the page works as before and shows new statuses on reload.
//
// The streaming server (manage.py stream) sends the logged-in user's new statuses,
// and the deletions of statuses they may be showing, as Server-Sent Events from
// /live/home, authenticated by the site's session cookie. New statuses wait behind a
// bar ("2 new statuses") so that the page does not move under the reader; a click
// shows them. Deleted statuses disappear at once; a changed one (an edit, a poll that
// ended: event change) takes the place of what the page shows of it.
//
// The same connection brings the user's unread notification count (event: unread)
// whenever it changes: the navigation's badge shows it, keeping the highest version seen,
// so that a count older than the page's (or than one already shown) never replaces it.
//
// Nothing is missed across a reconnection: every event carries an id, "S.V" (the
// newest status id and unread-count version the connection has sent), which the
// browser sends back as Last-Event-ID when it reconnects; the server first sends what
// came in between (from the home timeline: up to 200 statuses, then a "load newer"
// event, shown as a link that reloads the page) and the unread count if it changed.
// The first connection passes the page's own cursor (?last_event_id=: its newest
// status and its badge's version), so that what came while the page loaded comes too.
// When the browser gives up (an error answer, such as 503 from a stopping server),
// this script connects again itself after a growing pause, with the last id seen.
//
// Each status comes as its markup, made and escaped on the server by the same macro
// as the page's own statuses (templates/_status.html), and is inserted as it is. The
// author's own statuses carry a delete form whose CSRF token is blank: this page's
// goes in. A repost comes as its original, with
// "shows" naming it: a page that shows the original already skips it.
//
// The Top timeline (templates/timeline/top.html, data-latest-url) does not reorder
// under the reader: it hears the same home feed from the home's newest status
// (data-newest), and counts what comes on a link to Latest ("3 new statuses on
// Latest") instead of showing it.
(function () {
  "use strict";
  var timeline = document.querySelector(".timeline[data-stream-port]");
  if (!timeline || !window.EventSource) return;
  var latestUrl = timeline.getAttribute("data-latest-url"); // Top's page only

  // A tab left open for days must not hoard statuses: past this many, the oldest
  // waiting ones are forgotten (a reload shows them all anyway).
  var MAX_PENDING = 200;
  var pending = []; // received, not shown yet
  var heard = {}; // on Top: the ids of the new statuses counted
  var heardCount = 0;
  var bar = document.createElement(latestUrl ? "a" : "button");
  if (latestUrl) {
    bar.href = latestUrl;
    bar.className = "live-bar top-live-bar";
  } else {
    bar.type = "button";
    bar.className = "live-bar";
  }
  bar.hidden = true;
  bar.setAttribute("aria-live", "polite");
  timeline.parentNode.insertBefore(bar, timeline);
  // Shown when more statuses came while disconnected than the server replays.
  var more = document.createElement("a");
  more.className = "live-more";
  more.href = location.pathname;
  more.hidden = true;
  more.textContent = "More new statuses: load the newest";
  timeline.parentNode.insertBefore(more, timeline);

  function streamUrl() {
    // STREAM_PUBLIC_URL when set (production: a path such as /stream routed by the
    // reverse proxy); otherwise this page's host name on the stream server's port.
    var base = timeline.getAttribute("data-stream-url");
    if (!base) {
      base = location.protocol + "//" + location.hostname + ":" +
        timeline.getAttribute("data-stream-port");
    }
    // A group's page names its own feed (data-stream-path: /live/group?slug=...).
    var path = timeline.getAttribute("data-stream-path") || "/live/home";
    var url = new URL(base.replace(/\/+$/, "") + path, location.href);
    if (lastEventId) url.searchParams.set("last_event_id", lastEventId);
    return url.href;
  }

  function pageCursor() {
    // "S.V": the newest status on the page (on Top: the home's newest, data-newest)
    // and the version of its unread count.
    var newest = Number(timeline.getAttribute("data-newest")) || 0;
    timeline.querySelectorAll("article.status[id^='status-']").forEach(function (article) {
      newest = Math.max(newest, Number(article.id.slice("status-".length)) || 0);
    });
    var badge = document.querySelector(".unread-count[data-version]");
    return newest + "." + (badge ? badge.getAttribute("data-version") : "");
  }
  var lastEventId = pageCursor();

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

  function remember(event) {
    if (event.lastEventId) lastEventId = event.lastEventId;
  }

  function onLoadNewer(event) {
    remember(event);
    if (latestUrl) {
      bar.textContent = "New statuses on Latest";
      bar.hidden = false;
      return;
    }
    more.hidden = false;
  }

  function onStatus(event) {
    remember(event);
    var status = JSON.parse(event.data);
    // A repost shows its original ("shows"): a page that shows it already skips it.
    var shows = status.shows || status.id;
    if (latestUrl) {
      if (heard[shows] || document.getElementById("status-" + shows)) return;
      heard[shows] = true;
      heardCount += 1;
      bar.textContent = heardCount + " new status" + (heardCount === 1 ? "" : "es") + " on Latest";
      bar.hidden = false;
      return;
    }
    var known = document.getElementById("status-" + shows) ||
      pending.some(function (other) { return (other.shows || other.id) === shows; });
    if (known) return;
    pending.push(status);
    if (pending.length > MAX_PENDING) pending.shift();
    updateBar();
  }

  function onDelete(event) {
    remember(event);
    var id = JSON.parse(event.data).id;
    var shown = document.getElementById("status-" + id);
    // Keyword filters: a collapsed status goes with its "Filtered" wrapper.
    if (shown) (shown.closest("details.filtered") || shown).remove();
    pending = pending.filter(function (status) { return status.id !== id; });
    updateBar();
  }

  function onChange(event) {
    // A changed status (an edit, a poll that ended): redrawn where the page shows it,
    // and in the statuses waiting behind the bar.
    remember(event);
    var status = JSON.parse(event.data);
    var shown = document.getElementById("status-" + status.id);
    var fresh = shown ? renderStatus(status) : null;
    if (fresh) (shown.closest("details.filtered") || shown).replaceWith(fresh);
    pending.forEach(function (other) { if (other.id === status.id) other.html = status.html; });
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

  function onDirect(event) {
    // A new direct message, or a new count of conversations with unread messages.
    var data = JSON.parse(event.data);
    document.querySelectorAll(".direct-count").forEach(function (badge) {
      if (data.version <= Number(badge.getAttribute("data-version") || 0)) return;
      badge.setAttribute("data-version", String(data.version));
      badge.textContent = data.count > 99 ? "99+" : String(data.count);
      badge.hidden = data.count === 0;
    });
  }

  if (!latestUrl) bar.addEventListener("click", showPending);
  // withCredentials: in development the stream is on another port, so another
  // origin; the session cookie must go along for the server to know who this is.
  // Pauses before connecting again once the browser has given up: doubling from 5 s
  // to 5 minutes, back to 5 s once a connection opens. One connection at a time.
  var FIRST_PAUSE = 5000, MAX_PAUSE = 300000;
  var pause = FIRST_PAUSE;

  function connect() {
    var source = new EventSource(streamUrl(), { withCredentials: true });
    source.addEventListener("status", onStatus);
    source.addEventListener("delete", onDelete);
    source.addEventListener("change", onChange);
    source.addEventListener("unread", onUnread);
    source.addEventListener("direct", onDirect);
    source.addEventListener("load-newer", onLoadNewer);
    source.addEventListener("open", function () {
      pause = FIRST_PAUSE;
      timeline.setAttribute("data-live", "connected");
    });
    source.addEventListener("error", function () {
      // The browser reconnects by itself after a network error, sending the last id
      // as Last-Event-ID; it gives up (CLOSED) on an error answer, such as 401 once
      // the session has ended or 503 from a server that is stopping.
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
