// Progressive enhancement only: the status form and the search box work the same
// without this file. Autocomplete of @mentions and #tags in the status form, and of
// people and tags in the header's search box (setUpSearch, below).
//
// A form with data-complete="<url>" (templates/_status_form.html, the home page's form)
// gets it: while the word under the caret is "@al" or "#red", the JSON endpoint
// (timeline/search.py complete_json: up to 8, from the search index) is asked, and its
// answers are offered in a listbox under the box. Up and Down
// move, Enter or Tab picks, Escape closes; a click picks too. Picking replaces the word
// with the completion and a space.
(function () {
  var DELAY_MS = 150; // typing pauses this long before asking: fewer requests
  // "@" or "#" (or the full-width "＃") at the start of a word, then letters, digits, _.
  var WORD = /(^|[^\p{L}\p{N}_\/=])([@#\uff03][\p{L}\p{M}\p{N}_]+)$/u;

  // The completions the endpoint gives for ``address`` (a promise of a list; none when
  // it answers an error): the status box's and the header's search box's one request.
  function suggestions(address) {
    return fetch(address, { credentials: "same-origin", headers: { Accept: "application/json" } })
      .then(function (response) { return response.ok ? response.json() : { results: [] }; })
      .then(function (data) { return data.results || []; });
  }

  function setUp(form, box, url, index) {
    var list = document.createElement("ul");
    list.id = "completions-" + index;
    list.className = "completions";
    list.setAttribute("role", "listbox");
    list.setAttribute("aria-label", "Completions");
    list.hidden = true;
    box.parentNode.insertBefore(list, box.nextSibling);
    // The box stays a textbox: a textarea may not take the combobox role, nor a textbox
    // aria-expanded (ARIA in HTML). It says it completes from a list, names the list,
    // and points at the highlighted option (aria-activedescendant, in highlight).
    box.setAttribute("aria-autocomplete", "list");
    box.setAttribute("aria-controls", list.id);

    var options = [];   // the completions shown: {value, label}
    var active = -1;    // the highlighted one
    var word = null;    // {start, end} of the word they complete, in the box's value
    var timer = null;
    var asked = 0;      // the latest request's number: older answers are dropped

    function close() {
      options = [];
      active = -1;
      list.hidden = true;
      list.textContent = "";
      box.removeAttribute("aria-activedescendant");
    }

    function highlight(index) {
      active = index;
      Array.prototype.forEach.call(list.children, function (item, i) {
        item.setAttribute("aria-selected", i === index ? "true" : "false");
      });
      if (index >= 0) box.setAttribute("aria-activedescendant", list.id + "-" + index);
      else box.removeAttribute("aria-activedescendant");
    }

    function show(results) {
      close();
      if (!results.length) return;
      options = results;
      results.forEach(function (result, i) {
        var item = document.createElement("li");
        item.id = list.id + "-" + i;
        item.setAttribute("role", "option");
        var value = document.createElement("span");
        value.className = "value";
        value.textContent = result.value;
        item.appendChild(value);
        if (result.name) {
          var name = document.createElement("bdi");
          name.className = "name";
          name.textContent = result.name;
          item.appendChild(document.createTextNode(" "));
          item.appendChild(name);
        }
        // mousedown, not click: the box keeps its focus (and its caret).
        item.addEventListener("mousedown", function (event) {
          event.preventDefault();
          pick(i);
        });
        list.appendChild(item);
      });
      list.hidden = false;
      highlight(0);
    }

    function pick(index) {
      var chosen = options[index];
      if (!chosen || !word) return;
      var text = box.value;
      var inserted = chosen.value + " ";
      var after = text.slice(word.end).replace(/^ /, "");
      box.value = text.slice(0, word.start) + inserted + after;
      var caret = word.start + inserted.length;
      box.setSelectionRange(caret, caret);
      close();
      box.dispatchEvent(new Event("input", { bubbles: true })); // the counter counts it
    }

    function wordAtCaret() {
      if (box.selectionStart !== box.selectionEnd) return null;
      var end = box.selectionEnd;
      var match = WORD.exec(box.value.slice(0, end));
      if (!match) return null;
      // The word must end at the caret, not run on past it.
      if (/^[\p{L}\p{M}\p{N}_]/u.test(box.value.slice(end, end + 1))) return null;
      return { start: end - match[2].length, end: end, text: match[2] };
    }

    function ask() {
      var found = wordAtCaret();
      word = found;
      if (!found) return close();
      var number = ++asked;
      suggestions(url + "?q=" + encodeURIComponent(found.text.replace(/^\uff03/, "#")))
        .then(function (results) { if (number === asked) show(results); })
        .catch(function () { if (number === asked) close(); });
    }

    box.addEventListener("input", function () {
      clearTimeout(timer);
      timer = setTimeout(ask, DELAY_MS);
    });
    box.addEventListener("keydown", function (event) {
      if (list.hidden) return;
      if (event.key === "ArrowDown") {
        highlight((active + 1) % options.length);
      } else if (event.key === "ArrowUp") {
        highlight((active - 1 + options.length) % options.length);
      } else if (event.key === "Enter" || event.key === "Tab") {
        if (active < 0) return;
        pick(active);
      } else if (event.key === "Escape") {
        close();
      } else {
        return;
      }
      event.preventDefault();
    });
    box.addEventListener("blur", close);
  }

  // The header's search box (an <input data-complete="<url>">, templates/base.html): as
  // soon as it holds two letters or digits (no "@" or "#" needed) the endpoint is asked
  // with mixed=1 for people (by login or name) and tags, offered in a listbox under the
  // box (a combobox). Down and Up move, Enter opens the highlighted one (with none
  // highlighted, Enter searches, as without this file), Escape closes; a click opens.
  var ENOUGH = /[\p{L}\p{N}].*[\p{L}\p{N}]/u;

  function setUpSearch(box, url) {
    var list = document.createElement("ul");
    list.id = box.id + "-completions";
    list.className = "completions search-completions";
    list.setAttribute("role", "listbox");
    list.setAttribute("aria-label", "Suggestions");
    list.hidden = true;
    box.parentNode.insertBefore(list, box.nextSibling);
    box.setAttribute("role", "combobox");
    box.setAttribute("aria-autocomplete", "list");
    box.setAttribute("aria-controls", list.id);
    box.setAttribute("aria-expanded", "false");
    box.setAttribute("autocomplete", "off");

    var options = [];
    var active = -1;
    var timer = null;
    var asked = 0;

    function close() {
      options = [];
      active = -1;
      list.hidden = true;
      list.textContent = "";
      box.setAttribute("aria-expanded", "false");
      box.removeAttribute("aria-activedescendant");
    }

    function highlight(index) {
      active = index;
      Array.prototype.forEach.call(list.children, function (item, i) {
        item.setAttribute("aria-selected", i === index ? "true" : "false");
      });
      if (index >= 0) box.setAttribute("aria-activedescendant", list.id + "-" + index);
      else box.removeAttribute("aria-activedescendant");
    }

    function part(tag, className, text) {
      var element = document.createElement(tag);
      element.className = className;
      element.textContent = text;
      return element;
    }

    function show(results) {
      close();
      if (!results.length) return;
      options = results;
      results.forEach(function (result, i) {
        var item = document.createElement("li");
        item.id = list.id + "-" + i;
        item.setAttribute("role", "option");
        item.setAttribute("aria-selected", "false");
        if (result.tag !== undefined) {
          item.className = "completion-tag";
          item.appendChild(part("span", "value", result.value));
          item.appendChild(document.createTextNode(" "));
          item.appendChild(part("span", "kind", "tag"));
        } else {
          item.className = "completion-person";
          item.appendChild(part("bdi", "person-name", result.name || result.login));
          item.appendChild(document.createTextNode(" "));
          item.appendChild(part("span", "value", result.value));
        }
        item.addEventListener("mousedown", function (event) {
          event.preventDefault(); // the box keeps its focus until the page changes
          open(i);
        });
        list.appendChild(item);
      });
      list.hidden = false;
      box.setAttribute("aria-expanded", "true");
    }

    function open(index) {
      var chosen = options[index];
      if (chosen && chosen.url) window.location.assign(chosen.url);
    }

    function ask() {
      var text = box.value.trim();
      if (!ENOUGH.test(text)) return close();
      var number = ++asked;
      suggestions(url + "?mixed=1&q=" + encodeURIComponent(text.replace(/^\uff03/, "#")))
        .then(function (results) { if (number === asked) show(results); })
        .catch(function () { if (number === asked) close(); });
    }

    box.addEventListener("input", function () {
      clearTimeout(timer);
      timer = setTimeout(ask, DELAY_MS);
    });
    box.addEventListener("keydown", function (event) {
      if (list.hidden) return;
      if (event.key === "ArrowDown") {
        highlight((active + 1) % options.length);
      } else if (event.key === "ArrowUp") {
        highlight(active <= 0 ? options.length - 1 : active - 1);
      } else if (event.key === "Enter") {
        if (active < 0) return; // the form searches
        open(active);
      } else if (event.key === "Escape") {
        close();
      } else {
        return;
      }
      event.preventDefault();
    });
    box.addEventListener("blur", close);
  }

  document.querySelectorAll("form[data-complete]").forEach(function (form, index) {
    var box = form.querySelector("textarea");
    if (box) setUp(form, box, form.getAttribute("data-complete"), index);
  });
  document.querySelectorAll("input[data-complete]").forEach(function (box) {
    setUpSearch(box, box.getAttribute("data-complete"));
  });
})();
