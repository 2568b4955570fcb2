// The book's small fixes to every page of the site (book/_config.yml adds this file to each).
(function () {
  // The theme opens its download links (the chapter as .ipynb, its .md source) in a new tab, where the browser
  // shows a notebook as raw JSON: they download the file instead.
  function downloadLinks() {
    document.querySelectorAll("a.btn-download-notebook-button, a.btn-download-source-button").forEach(function (a) {
      a.setAttribute("download", a.getAttribute("href").split("/").pop());
      a.removeAttribute("target");
    });
  }

  // A table wider than the text column scrolls inside it (minidb.book.tables); the line under it, which says so,
  // shows only while it is wider. A box that scrolls can take the keyboard's focus, so that a reader without a
  // mouse can scroll it too, and says what it is.
  function scrollNotes() {
    document.querySelectorAll(".minidb-scroll").forEach(function (box, i) {
      var wider = box.scrollWidth > box.clientWidth + 1;
      box.classList.toggle("minidb-overflowing", wider);
      focusable(box, wider, "Wide table " + (i + 1) + " of the page, scrolls sideways");  // each region a name of its own
    });
  }

  // MathJax 3 does not break a displayed formula into lines: one wider than the column (on a phone) is set smaller,
  // down to MIN_MATH of its size, until it fits; past that it scrolls, as a table does.
  var MIN_MATH = 0.65;
  function fitFormulas() {
    document.querySelectorAll("mjx-container[display='true']").forEach(function (box) {
      if (!box.dataset.fontSize) box.dataset.fontSize = getComputedStyle(box).fontSize;
      var size = parseFloat(box.dataset.fontSize);
      box.style.fontSize = "";
      box.style.fontSize = size + "px";
      var ratio = box.clientWidth / box.scrollWidth;
      if (ratio < 1) box.style.fontSize = Math.max(MIN_MATH, ratio * 0.98) * size + "px";
      focusable(box, box.scrollWidth > box.clientWidth + 1, null);
    });
  }

  function layout() {
    scrollNotes();
    fitFormulas();
  }

  function focusable(box, yes, label) {
    if (yes) {
      box.setAttribute("tabindex", "0");
      if (label) { box.setAttribute("role", "region"); box.setAttribute("aria-label", label); }
    } else {
      ["tabindex", "role", "aria-label"].forEach(function (name) { box.removeAttribute(name); });
    }
  }

  // The toggles of hidden code cells (myst-nb) are named "Toggle hidden content" while they show "Show code cell
  // source": what a screen reader says of a control must include what it shows, so they are named by their text.
  function toggleNames() {
    document.querySelectorAll('details.hide > summary[aria-label="Toggle hidden content"]').forEach(function (s) {
      s.removeAttribute("aria-label");
    });
  }

  function ready() {
    downloadLinks();
    toggleNames();
    layout();
    window.addEventListener("resize", layout);
    window.addEventListener("load", layout);  // once the fonts are in
  }

  // Run `then` once MathJax has set the page's formulas: now if it has, else when it has (MathJax reads its
  // configuration, this hook with it, from window.MathJax when it loads).
  function afterMath(then) {
    var mathjax = window.MathJax = window.MathJax || {};
    if (mathjax.startup && mathjax.startup.promise) {
      mathjax.startup.promise.then(then);
      return;
    }
    mathjax.startup = mathjax.startup || {};
    var ready = mathjax.startup.pageReady;
    mathjax.startup.pageReady = function () {
      return (ready ? ready() : window.MathJax.startup.defaultPageReady()).then(then);
    };
  }

  afterMath(fitFormulas);
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", ready);
  else ready();
})();
