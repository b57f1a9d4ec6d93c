// Progressive enhancement only: the status form and the search box work the same
// without this file. Autocomplete of @mentions and #tags in the status form, and of
// people and tags in the header's search box.
//
// A form with data-complete="<url>" (templates/_status_form.html, the home page's form)
// gets it: while the word under the caret is "@al" or "#red", the JSON endpoint
// (timeline/search.py complete_json: up to 8, from the search index) is asked, and its
// answers are offered in a listbox under the box. Up and Down move, Enter or Tab picks,
// Escape closes; a click picks too. Picking replaces the word with the completion and a
// space.
//
// The header's search box (an <input data-complete="<url>">, templates/base.html): as
// soon as it holds two letters or digits (no "@" or "#" needed) the endpoint is asked
// with mixed=1 for people (by login or name) and tags, offered in a listbox under the
// box (a combobox). Down and Up move, Enter opens the highlighted one (with none
// highlighted, Enter searches, as without this file), Escape closes; a click opens.
(function () {
  var DELAY_MS = 150; // typing pauses this long before asking: fewer requests
  // "@" or "#" (or the full-width "＃") at the start of a word, then letters, digits, _.
  var WORD = /(^|[^\p{L}\p{N}_\/=])([@#\uff03][\p{L}\p{M}\p{N}_]+)$/u;
  var ENOUGH = /[\p{L}\p{N}].*[\p{L}\p{N}]/u; // the search box asks from two of these

  // The completions the endpoint gives for ``address`` (a promise of a list; none when
  // it answers an error).
  function suggestions(address) {
    return fetch(address, { credentials: "same-origin", headers: { Accept: "application/json" } })
      .then(function (response) { return response.ok ? response.json() : { results: [] }; })
      .then(function (data) { return data.results || []; });
  }

  function part(tag, className, text) {
    var element = document.createElement(tag);
    element.className = className;
    element.textContent = text;
    return element;
  }

  // A listbox of suggestions under ``box``, what both boxes share: asking as the reader
  // types (``how.address()``: the endpoint's URL, or null for nothing to ask), showing
  // the answers (``how.fill(item, result)``), the keys (Down, Up, Escape, and
  // ``how.pickKeys`` choosing the highlighted one through ``how.choose(result)``), a
  // click, and the ARIA that goes with it. ``how.combobox``: the box takes the combobox
  // role (an <input>; a textarea may not, nor a textbox aria-expanded, ARIA in HTML),
  // and nothing is highlighted until the reader moves (Enter then submits the form).
  function listbox(box, how) {
    var list = document.createElement("ul");
    list.id = how.id;
    list.className = how.className;
    list.setAttribute("role", "listbox");
    list.setAttribute("aria-label", how.label);
    list.hidden = true;
    box.parentNode.insertBefore(list, box.nextSibling);
    if (how.combobox) {
      box.setAttribute("role", "combobox");
      box.setAttribute("aria-expanded", "false");
      box.setAttribute("autocomplete", "off");
    }
    box.setAttribute("aria-autocomplete", "list");
    box.setAttribute("aria-controls", list.id);

    var options = []; // the results shown
    var active = -1;  // the highlighted one
    var timer = null;
    var asked = 0;    // the latest request's number: older answers are dropped

    function close() {
      options = [];
      active = -1;
      list.hidden = true;
      list.textContent = "";
      if (how.combobox) box.setAttribute("aria-expanded", "false");
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

    function choose(index) {
      var chosen = options[index];
      close();
      if (chosen) how.choose(chosen);
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
        how.fill(item, result);
        // mousedown, not click: the box keeps its focus (and its caret).
        item.addEventListener("mousedown", function (event) {
          event.preventDefault();
          choose(i);
        });
        list.appendChild(item);
      });
      list.hidden = false;
      if (how.combobox) box.setAttribute("aria-expanded", "true");
      else highlight(0);
    }

    function ask() {
      var address = how.address();
      if (!address) return close();
      var number = ++asked;
      suggestions(address)
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
      } else if (how.pickKeys.indexOf(event.key) >= 0) {
        if (active < 0) return; // nothing highlighted: the key does what it does
        choose(active);
      } else if (event.key === "Escape") {
        close();
      } else {
        return;
      }
      event.preventDefault();
    });
    box.addEventListener("blur", close);
  }

  // The status box: completes the @mention or #tag under the caret.
  function setUpStatusBox(box, url, index) {
    var word = null; // {start, end, text} of the word being completed

    function wordAtCaret() {
      if (box.selectionStart !== box.selectionEnd) return null;
      var end = box.selectionEnd;
      var match = WORD.exec(box.value.slice(0, end));
      if (!match) return null;
      // The word must end at the caret, not run on past it.
      if (/^[\p{L}\p{M}\p{N}_]/u.test(box.value.slice(end, end + 1))) return null;
      return { start: end - match[2].length, end: end, text: match[2] };
    }

    listbox(box, {
      id: "completions-" + index,
      className: "completions",
      label: "Completions",
      combobox: false,
      pickKeys: ["Enter", "Tab"],
      address: function () {
        word = wordAtCaret();
        return word && url + "?q=" + encodeURIComponent(word.text.replace(/^\uff03/, "#"));
      },
      fill: function (item, result) {
        item.appendChild(part("span", "value", result.value));
        if (result.name) {
          item.appendChild(document.createTextNode(" "));
          item.appendChild(part("bdi", "name", result.name));
        }
      },
      choose: function (result) {
        if (!word) return;
        var text = box.value;
        var inserted = result.value + " ";
        var after = text.slice(word.end).replace(/^ /, "");
        box.value = text.slice(0, word.start) + inserted + after;
        var caret = word.start + inserted.length;
        box.setSelectionRange(caret, caret);
        box.dispatchEvent(new Event("input", { bubbles: true })); // the counter counts it
      },
    });
  }

  // The header's search box: suggests people and tags, and opens the one chosen.
  function setUpSearch(box, url) {
    listbox(box, {
      id: box.id + "-completions",
      className: "completions search-completions",
      label: "Suggestions",
      combobox: true,
      pickKeys: ["Enter"],
      address: function () {
        var text = box.value.trim();
        return ENOUGH.test(text) ? url + "?mixed=1&q=" + encodeURIComponent(text.replace(/^\uff03/, "#")) : null;
      },
      fill: function (item, result) {
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
      },
      choose: function (result) {
        if (result.url) window.location.assign(result.url);
      },
    });
  }

  document.querySelectorAll("form[data-complete]").forEach(function (form, index) {
    var box = form.querySelector("textarea");
    if (box) setUpStatusBox(box, form.getAttribute("data-complete"), index);
  });
  document.querySelectorAll("input[data-complete]").forEach(function (box) {
    setUpSearch(box, box.getAttribute("data-complete"));
  });
})();
