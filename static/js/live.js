// Live updates of the home timeline. Progressive enhancement: without this file, or
// without JavaScript, the page works as before and shows new statuses on reload.
//
// The streaming server (manage.py stream) sends the logged-in user's new statuses,
// and the deletions of statuses they may be showing, as Server-Sent Events from
// /live/home, authenticated by the site's session cookie. New statuses wait behind a
// bar ("2 new statuses") so that the page does not move under the reader; a click
// shows them. Deleted statuses disappear at once.
//
// Statuses are built with createElement and textContent only, never innerHTML: their
// text is other people's. The markup is templates/_status.html's.
(function () {
  "use strict";
  var timeline = document.getElementById("timeline");
  if (!timeline || !window.EventSource || !timeline.hasAttribute("data-stream-port")) return;

  // A tab left open for days must not hoard statuses: past this many, the oldest
  // waiting ones are forgotten (a reload shows them all anyway).
  var MAX_PENDING = 200;
  var myUid = Number(timeline.getAttribute("data-user-id"));
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

  function link(template, status) {
    // The page's URLs, reversed by Django with placeholders: "/@__login__/0/".
    return template.replace("__login__", encodeURIComponent(status.login))
      .replace("/0/", "/" + status.id + "/");
  }

  function element(tag, className, text) {
    var node = document.createElement(tag);
    if (className) node.className = className;
    if (text !== undefined) node.textContent = text;
    return node;
  }

  function relativeTime(posted) {
    // As the reltime template filter writes it.
    var seconds = Date.now() / 1000 - posted;
    if (seconds < 60) return "now";
    if (seconds < 3600) return Math.floor(seconds / 60) + "m";
    if (seconds < 86400) return Math.floor(seconds / 3600) + "h";
    return Math.floor(seconds / 86400) + "d";
  }

  function hiddenInput(name, value) {
    var input = element("input");
    input.type = "hidden";
    input.name = name;
    input.value = value;
    return input;
  }

  function deleteForm(status) {
    // The page's forms all carry a CSRF token; any of them will do for this one.
    var token = document.querySelector('input[name="csrfmiddlewaretoken"]');
    if (!token) return null;
    var form = element("form", "inline delete");
    form.method = "post";
    form.action = link(timeline.getAttribute("data-delete-url"), status);
    form.appendChild(hiddenInput("csrfmiddlewaretoken", token.value));
    form.appendChild(hiddenInput("next", location.pathname + location.search));
    var button = element("button", "link danger", "Delete");
    button.type = "submit";
    form.appendChild(button);
    return form;
  }

  function renderStatus(status) {
    var article = element("article", "status");
    article.id = "status-" + status.id;
    article.setAttribute("data-status-id", status.id);

    var head = element("header", "status-head");
    var author = element("a", "author");
    author.href = link(timeline.getAttribute("data-profile-url"), status);
    author.appendChild(element("strong", null, status.name));
    author.appendChild(document.createTextNode(" "));
    author.appendChild(element("span", "login", "@" + status.login));
    head.appendChild(author);
    head.appendChild(document.createTextNode(" · "));
    var when = element("a", "when");
    when.href = link(timeline.getAttribute("data-status-url"), status);
    var iso = new Date(status.posted * 1000).toISOString();
    var time = element("time", null, relativeTime(status.posted));
    time.dateTime = iso;
    time.title = iso;
    when.appendChild(time);
    head.appendChild(when);
    article.appendChild(head);

    // The linebreaksbr filter's rendering: each line a text node, <br> between.
    var message = element("p", "message");
    String(status.message).split(/\r\n|\r|\n/).forEach(function (line, i) {
      if (i) message.appendChild(document.createElement("br"));
      message.appendChild(document.createTextNode(line));
    });
    article.appendChild(message);
    if (status.location) article.appendChild(element("p", "location", "📍 " + status.location));
    if (status.uid === myUid) {
      var form = deleteForm(status);
      if (form) article.appendChild(form);
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
      if (!document.getElementById("status-" + status.id)) {
        timeline.insertBefore(renderStatus(status), timeline.firstChild);
      }
    });
    pending = [];
    updateBar();
  }

  function onStatus(event) {
    var status = JSON.parse(event.data);
    var known = document.getElementById("status-" + status.id) ||
      pending.some(function (other) { return other.id === status.id; });
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

  bar.addEventListener("click", showPending);
  // withCredentials: in development the stream is on another port, so another
  // origin; the session cookie must go along for the server to know who this is.
  var source = new EventSource(streamUrl(), { withCredentials: true });
  source.addEventListener("status", onStatus);
  source.addEventListener("delete", onDelete);
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
