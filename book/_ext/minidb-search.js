// Search results with their snippets, on a site opened from its files.
//
// Sphinx's search shows under each result a snippet of the page around the words searched, which it gets by
// fetching the page. A page opened from a file (file://) may fetch no other file, so every fetch fails and the
// results come without snippets. The build writes the pages' text, as the search reads it, into
// minidb-search-pages.js (window.MINIDB_PAGES: the page's path under the site's root -> its main content as HTML);
// this file answers the search's fetches of those pages from there, and leaves any other fetch alone.
(function () {
  var pages = window.MINIDB_PAGES || {};
  var root = new URL(document.documentElement.dataset.content_root || "./", window.location.href).href;
  var fetchFromNetwork = window.fetch.bind(window);
  window.fetch = function (resource, options) {
    var href = new URL(String(resource && resource.url ? resource.url : resource), window.location.href).href;
    var path = href.indexOf(root) === 0 ? href.slice(root.length).split("#")[0].split("?")[0] : null;
    if (path !== null && Object.prototype.hasOwnProperty.call(pages, path)) {
      return Promise.resolve(new Response(pages[path], {headers: {"Content-Type": "text/html; charset=utf-8"}}));
    }
    return fetchFromNetwork(resource, options);
  };
})();
